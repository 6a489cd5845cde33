/**
 * The ledger through the real mongoose driver on the test engine: sale events booked once from the
 * ledger's checkpoint (also when read again), reversals after payment taking the balance below
 * zero, corrections, concurrent bookings, a crash between a transaction and its count, the
 * migration of commission paid before the ledger, and `verifyLedger` after every flow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal128 } from 'bson';
import { bookLedgerEntry, changeStatus, saleEvent, type ConversionRow } from '@cw/conversions';
import { createTestDeps, type TestDeps } from '@cw-tools/testing';
import { balancesOf, book, bookAccountSales, bookCorrection, bookPendingSales, listBalanceTransactions, migrateLedger, settle, verifyLedger } from '@cw/ledger';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps();
}, 60_000);
afterAll(() => deps?.close());

let n = 0;
/** A pending sale of `commission` for the publisher, with its created event logged-pending as the intake writes it. */
async function sale(publisherId: string, commission: string, currency = 'EUR', extra: Partial<Record<string, unknown>> = {}): Promise<string> {
  const id = `cnv_ledger${++n}`;
  const at = new Date(Date.now() - 3_600_000);
  const row = {
    _id: id,
    publisher_id: publisherId,
    program_id: 1001,
    campaign_id: 501,
    subid: '',
    status: 'pending',
    sale_amount: Decimal128.fromString('100.00'),
    commission: Decimal128.fromString(commission),
    currency,
    occurred_at: at,
    source: 'v1',
    reversed: false,
    paid: false,
    events: [saleEvent('sale.created', at)],
    log_pending: true,
    created_at: at,
    updated_at: at,
    ...extra,
  } as unknown as ConversionRow;
  expect(await deps.data.conversions.insertRows([row])).toBe(1);
  return id;
}

const balances = async (publisherId: string) => Object.fromEntries((await balancesOf(deps, publisherId)).map((b) => [b.currency, b.amount]));
const expectVerified = async () => {
  const v = await verifyLedger(deps);
  expect(v.problems).toEqual([]);
  expect(v.balanced).toBe(true);
  return v;
};

describe('commission from the sale events', () => {
  it('books an approval once, takes a reversal back, and ignores created and pending-declined events', async () => {
    const pub = 'pub_ledger_a';
    const a = await sale(pub, '12.34');
    const b = await sale(pub, '0.10');
    const c = await sale(pub, '5.00');
    await changeStatus(deps, a, 'approved');
    await changeStatus(deps, b, 'approved');
    await changeStatus(deps, c, 'declined');
    // Each change is booked as it is written (the composition root's port): reading again finds nothing new.
    expect(await balances(pub)).toEqual({ EUR: '12.44' });
    expect(await bookAccountSales(deps, pub)).toBe(0);
    await changeStatus(deps, a, 'declined'); // a reversal
    await bookPendingSales(deps);
    expect(await balances(pub)).toEqual({ EUR: '0.10' });
    const page = await listBalanceTransactions(deps, await principal(pub), { page_size: 10, page: 1 });
    expect(page.data.map((e) => [e.type, e.amount, e.conversion_id])).toEqual([
      ['reversal', '-12.34', a],
      ['commission', '0.10', b],
      ['commission', '12.34', a],
    ]);
    await expectVerified();
  });

  it('books nothing twice when the events are read again from the start (a crash before the checkpoint moved)', async () => {
    const pub = 'pub_ledger_b';
    const a = await sale(pub, '7.77', 'GBP');
    await changeStatus(deps, a, 'approved');
    await bookAccountSales(deps, pub);
    await deps.models.EventLogHead.updateOne({ _id: pub }, { $set: { 'consumed.ledger': 0, 'behind.ledger': true } });
    expect(await bookPendingSales(deps)).toBeGreaterThan(0);
    expect(await balances(pub)).toEqual({ GBP: '7.77' });
    expect(await deps.models.LedgerTxn.countDocuments({ publisher_id: pub })).toBe(1);
    await expectVerified();
  });

  it('lets a reversal after payment take the balance below zero, to be netted from the next payout', async () => {
    const pub = 'pub_ledger_c';
    const a = await sale(pub, '40.00');
    await changeStatus(deps, a, 'approved');
    await bookAccountSales(deps, pub);
    await book(deps, {
      key: 'payout:po_test_c',
      publisher_id: pub,
      type: 'payout',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '-40.00' },
        { account: 'payouts', currency: 'EUR', amount: '40.00' },
      ],
      payout_id: 'po_test_c',
    });
    await changeStatus(deps, a, 'declined');
    await bookAccountSales(deps, pub);
    expect(await balances(pub)).toEqual({ EUR: '-40.00' });
    await expectVerified();
  });
});

describe('the journal', () => {
  it('refuses a transaction whose postings do not sum to zero in each currency', async () => {
    await expect(
      book(deps, {
        key: 'bad',
        publisher_id: 'pub_ledger_d',
        type: 'correction',
        postings: [
          { account: 'publisher', currency: 'EUR', amount: '1.00' },
          { account: 'corrections', currency: 'USD', amount: '-1.00' },
        ],
      }),
    ).rejects.toThrow(/EUR postings sum to 1.00/);
    expect(await deps.models.LedgerTxn.countDocuments({ publisher_id: 'pub_ledger_d' })).toBe(0);
  });

  it('counts 40 concurrent bookings once each, and the same cause booked 10 times at once once', async () => {
    const pub = 'pub_ledger_e';
    const posting = (amount: string) => [
      { account: 'publisher' as const, currency: 'EUR', amount },
      { account: 'corrections' as const, currency: 'EUR', amount: `-${amount}` },
    ];
    await Promise.all(Array.from({ length: 40 }, (_, i) => book(deps, { key: `k${i}`, publisher_id: pub, type: 'correction', postings: posting('0.01') })));
    const same = await Promise.all(
      Array.from({ length: 10 }, () => book(deps, { key: 'same', publisher_id: pub, type: 'correction', postings: posting('1.00') })),
    );
    expect(same.filter((r) => r.created)).toHaveLength(1);
    expect(await balances(pub)).toEqual({ EUR: '1.40' });
    expect(await deps.models.LedgerTxn.countDocuments({ publisher_id: pub })).toBe(41);
    await expectVerified();
  });

  it('keeps the balance exact when a process dies between a transaction and its count, and counts it once after', async () => {
    const pub = 'pub_ledger_f';
    await book(deps, {
      key: 'first',
      publisher_id: pub,
      type: 'correction',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '3.00' },
        { account: 'corrections', currency: 'EUR', amount: '-3.00' },
      ],
    });
    // What a kill -9 after the insert leaves: the transaction stored, not counted.
    await deps.models.LedgerTxn.create({
      _id: 'ltx_crashed',
      publisher_id: pub,
      type: 'correction',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '2.50' },
        { account: 'corrections', currency: 'EUR', amount: '-2.50' },
      ],
      created_at: new Date(),
      pending: true,
    });
    expect(await balances(pub)).toEqual({ EUR: '5.50' });
    await expectVerified();
    expect(await settle(deps, pub)).toBe(1);
    expect(await settle(deps, pub)).toBe(0);
    expect(await balances(pub)).toEqual({ EUR: '5.50' });
    await expectVerified();
  });

  it('finds a balance that does not equal its entries', async () => {
    const pub = 'pub_ledger_g';
    await book(deps, {
      key: 'x',
      publisher_id: pub,
      type: 'correction',
      postings: [
        { account: 'publisher', currency: 'EUR', amount: '9.99' },
        { account: 'corrections', currency: 'EUR', amount: '-9.99' },
      ],
    });
    await deps.models.LedgerBalance.updateOne({ _id: pub }, { $set: { 'balances.0.amount': Decimal128.fromString('10.99') } });
    const v = await verifyLedger(deps);
    expect(v.balanced).toBe(false);
    expect(v.problems).toEqual([`${pub} EUR: balance 10.99, entries sum to 9.99`]);
    await deps.models.LedgerBalance.updateOne({ _id: pub }, { $set: { 'balances.0.amount': Decimal128.fromString('9.99') } });
    await expectVerified();
  });
});

describe('corrections and the migration', () => {
  it('books a network booking as a correction once, also when the migration repairs it again', async () => {
    const pub = 'pub_ledger_h';
    await deps.data.auth.createPublishers([
      { _id: pub, name: 'Ledger H', status: 'active', feed_access: false, created_at: new Date(), updated_at: new Date() },
    ]);
    const c = await bookLedgerEntry(deps, { publisherId: pub, amount: '-4.50', currency: 'EUR', reason: 'Duplicate order' });
    expect(await balances(pub)).toEqual({ EUR: '-4.50' }); // booked as it was written
    expect((await bookCorrection(deps, c)).created).toBe(false);
    await migrateLedger(deps, { publisherId: pub });
    expect(await balances(pub)).toEqual({ EUR: '-4.50' });
    const page = await listBalanceTransactions(deps, await principal(pub), { page_size: 10, page: 1 });
    expect(page.data).toEqual([expect.objectContaining({ type: 'correction', amount: '-4.50', reason: 'Duplicate order', conversion_id: c._id })]);
    await expectVerified();
  });

  it('migrates a database from before the ledger: commission, reversals, corrections, and what was paid as one payout per currency; again changes nothing', async () => {
    const pub = 'pub_ledger_m';
    const at = new Date(Date.now() - 90 * 86_400_000);
    const approved = (e: number) => [saleEvent('sale.created', at), saleEvent('sale.approved', new Date(at.getTime() + e))];
    await sale(pub, '10.00', 'EUR', { status: 'approved', paid: true, events: approved(1) });
    await sale(pub, '20.00', 'EUR', { status: 'approved', paid: true, events: approved(2) });
    await sale(pub, '5.55', 'EUR', { status: 'approved', events: approved(3) });
    await sale(pub, '8.00', 'USD', { status: 'approved', paid: true, events: approved(4) });
    await sale(pub, '3.00', 'EUR', { status: 'declined', reversed: true, events: [...approved(5), saleEvent('sale.reversed', new Date(at.getTime() + 6))] });
    const seen: string[] = [];
    const first = await migrateLedger(deps, { onProgress: (p) => seen.push(p.last) });
    expect(seen).toContain(pub);
    expect(first.legacyPayouts).toBeGreaterThanOrEqual(2);
    // Owed: the unpaid 5.55 EUR; the paid ones paid; the reversed one booked and taken back.
    expect(await balances(pub)).toEqual({ EUR: '5.55', USD: '0.00' });
    const again = await migrateLedger(deps);
    expect(again).toMatchObject({ sales: 0, corrections: 0, legacyPayouts: 0 });
    expect(await balances(pub)).toEqual({ EUR: '5.55', USD: '0.00' });
    // Resumed after an account it reported (`--after`): only the accounts after it, in id order.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    const resumed: string[] = [];
    const tail = await migrateLedger(deps, { after: seen[0], onProgress: (p) => resumed.push(p.last) });
    expect(resumed).toEqual(seen.slice(1));
    expect(tail).toMatchObject({ accounts: seen.length - 1, last: seen.at(-1), sales: 0, legacyPayouts: 0 });
    await expectVerified();
  });
});

async function principal(pub: string) {
  const publisher = (await deps.data.auth.publisherById(pub)) ?? { _id: pub, name: pub, status: 'active', feed_access: false };
  return { publisher, credentialId: 'test', prefix: 'test', type: 'api_key', keyKind: 'live' } as never;
}
