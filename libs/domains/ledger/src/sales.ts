/**
 * The ledger as a consumer of the sale events (the events log's `ledger` checkpoint): an approval
 * books its commission to the publisher, a reversal (approved, then declined) takes it back, also
 * after it was paid (the balance may go negative and is netted from the next payout). Each event
 * is booked under its own id, so reading an event twice (a crash before the checkpoint moved)
 * books nothing twice. Created and declined-while-pending events move no money.
 */
import { accountsBehind, appendAccountEvents, appendPendingEvents, consumeAccountEvents, type ConsumedEvent } from '@cw/events-feed';
import { compareDecimals } from '@cw/money';
import { book } from './journal';
import { bookPendingCorrections } from './corrections';
import type { LedgerDeps } from './deps';

type Deps = Pick<LedgerDeps, 'data'>;

interface EventBody {
  id: string;
  type: string;
  created_at: string;
  publisher_id: string;
  conversion: { id: string; commission: string; currency: string };
}

const negate = (amount: string) => (amount.startsWith('-') ? amount.slice(1) : `-${amount}`);

async function bookEvent(deps: Deps, e: ConsumedEvent): Promise<void> {
  if (e.type !== 'sale.approved' && e.type !== 'sale.reversed') return;
  const body = JSON.parse(e.body) as EventBody;
  const { commission, currency, id: conversionId } = body.conversion;
  if (compareDecimals(commission, '0') === 0) return;
  const toPublisher = e.type === 'sale.approved' ? commission : negate(commission);
  const { created } = await book(deps, {
    key: `sale:${body.id}`,
    publisher_id: body.publisher_id,
    type: e.type === 'sale.approved' ? 'commission' : 'reversal',
    postings: [
      { account: 'publisher', currency, amount: toPublisher },
      { account: 'merchant_commission', currency, amount: negate(toPublisher) },
    ],
    conversion_id: conversionId,
    event_id: body.id,
    actor: 'system',
    created_at: new Date(body.created_at),
  });
  // Booked now (not found booked): whoever listens learns of it once per process that booked it.
  if (created && e.type === 'sale.reversed')
    await deps.data.ledger.reversalBooked({ publisherId: body.publisher_id, conversionId, currency, amount: commission.replace(/^-/, '') });
}

/** Books the account's sale events the ledger has not read (its events appended to the log first). */
export async function bookAccountSales(deps: Deps, publisherId: string): Promise<number> {
  await appendAccountEvents(deps, publisherId);
  return consumeAccountEvents(deps, 'ledger', publisherId, async (events) => {
    for (const e of events) await bookEvent(deps, e);
  });
}

/**
 * The worker's pass: changes appended to the log, every account whose log has events the ledger
 * has not read, and network bookings not booked yet. Returns how many events and bookings it read.
 */
export async function bookPendingSales(deps: Deps, opts: { accounts?: number } = {}): Promise<number> {
  await appendPendingEvents(deps, opts);
  let booked = 0;
  for (const publisherId of await accountsBehind(deps, 'ledger', opts.accounts ?? 1000)) booked += await bookAccountSales(deps, publisherId);
  return booked + (await bookPendingCorrections(deps));
}

/**
 * One account brought up to date (its sale events and network bookings): what the composition
 * root runs right after each conversion change is written, so a balance reflects a change at once;
 * a failure here is left to the worker's pass.
 */
export async function syncLedgerAccount(deps: Deps, publisherId: string): Promise<number> {
  return (await bookAccountSales(deps, publisherId)) + (await bookPendingCorrections(deps, publisherId));
}
