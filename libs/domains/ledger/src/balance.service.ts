/**
 * What a publisher reads of the ledger: its entries, newest first (`GET /balance/transactions/`,
 * the MCP tool, the portal's payments page) and its balance per currency (payment status). The
 * payment-status key rules: live keys and OAuth `affiliate:read`; test, sandbox, read-only and
 * demo keys 403.
 */
import type { Policy, Principal } from '@cw/auth';
import { CURSOR_PAGING, pageSizeInput, pageWindow, useCase, type InputOf, type ListSort } from '@cw/usecase';
import { LEDGER_TYPES, type LedgerTxn } from './data/ledger.schema';
import { balancesOf, ledgerTxnFromStored } from './journal';
import { own, type LedgerDeps } from './deps';

export const BALANCE_POLICY: Policy = {
  budget: 'account',
  refuseKinds: ['test', 'sandbox', 'read_only'],
  refuseDetail: 'Test, sandbox and read-only keys cannot read the balance.',
  scope: 'affiliate:read',
};

const NEWEST_FIRST: ListSort = [
  ['created_at', -1],
  ['_id', -1],
];

export const BALANCE_TRANSACTIONS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: LEDGER_TYPES, description: 'Only entries of this type.' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'Only entries in this currency (ISO 4217).' },
    page_size: pageSizeInput(500),
    ...CURSOR_PAGING,
  },
} as const;

export const BALANCE_ENTRY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type', 'amount', 'currency', 'conversion_id', 'payout_id', 'reason', 'created_at'],
  properties: {
    id: { type: 'string', description: 'The entry (`ltx_…`; a payout that converts currencies has one entry per currency, `ltx_…:EUR`).' },
    type: { type: 'string', enum: LEDGER_TYPES },
    amount: { type: 'string', description: 'Signed decimal: what the entry adds to the balance (negative: taken from it).' },
    currency: { type: 'string' },
    conversion_id: { type: ['string', 'null'] },
    payout_id: { type: ['string', 'null'] },
    reason: { type: ['string', 'null'], description: 'Corrections and payouts: why, in words.' },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

export interface BalanceEntry {
  id: string;
  type: LedgerTxn['type'];
  amount: string;
  currency: string;
  conversion_id: string | null;
  payout_id: string | null;
  reason: string | null;
  created_at: Date;
}

/** A transaction as the publisher sees it: its postings to the publisher's balance. */
export function entriesOf(t: LedgerTxn, currency?: string): BalanceEntry[] {
  const mine = t.postings.filter((p) => p.account === 'publisher' && (!currency || p.currency === currency));
  return mine.map((p) => ({
    id: mine.length > 1 ? `${t._id}:${p.currency}` : t._id,
    type: t.type,
    amount: p.amount,
    currency: p.currency,
    conversion_id: t.conversion_id ?? null,
    payout_id: t.payout_id ?? null,
    reason: t.reason ?? null,
    created_at: t.created_at,
  }));
}

/** The account's ledger entries, newest first, cursor-paged. */
export const listBalanceTransactions = useCase(
  BALANCE_POLICY,
  async function listBalanceTransactions(deps: Pick<LedgerDeps, 'config' | 'data'>, principal: Principal, input: InputOf<typeof BALANCE_TRANSACTIONS_INPUT>) {
    const w = pageWindow({ list: 'balance/transactions', account: principal.publisher._id, secret: deps.config.secretKey }, NEWEST_FIRST, input);
    const filter: Record<string, unknown> = {
      publisher_id: principal.publisher._id,
      ...(input.type ? { type: input.type } : {}),
      ...(input.currency ? { 'postings.account': 'publisher', 'postings.currency': input.currency } : {}),
    };
    const rows = await own(deps)
      .LedgerTxn.find(w.filter(filter))
      .sort(w.sort)
      .skip(w.skip)
      .limit(input.page_size + 1)
      .lean();
    return w.envelope(rows, (page) => page.flatMap((t) => entriesOf(ledgerTxnFromStored(t as Record<string, unknown>), input.currency)));
  },
  BALANCE_TRANSACTIONS_INPUT,
);

/** The account's balance per currency (the ledger's sum; may be negative after a reversal of paid commission). */
export async function accountBalances(deps: Pick<LedgerDeps, 'data'>, publisherId: string) {
  return balancesOf(deps, publisherId);
}
