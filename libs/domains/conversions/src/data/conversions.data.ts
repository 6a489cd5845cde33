/**
 * The conversions domain's data: conversions (with their sale events and the outbox inside each
 * one). Other domains reach it through `ConversionsData`'s methods. The libs split out of this one
 * (the events feed, the stats read model, the reports, the operator's acts; decision record 0047)
 * still read and flag conversion rows themselves, through `conversionsModels`: no other lib may.
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault, insertManyTolerant } from '@cw/db';
import type { ConversionRecord } from './conversion.schema';
import { conversionSchema, type ConversionDoc } from './conversion.schema';
import { attributionSpendSchema, type AttributionSpendDoc } from './attribution-spend.schema';

export type ConversionRow = ConversionDoc & { _id: string };

export interface ConversionsModels {
  Conversion: Model<ConversionDoc>;
  /** Agent attribution tokens spent, by nonce (write-once). */
  AttributionSpend: Model<AttributionSpendDoc>;
}

const { DomainHandle, open } = modelVault<ConversionsModels>('conversions');

/**
 * The port the lifecycle calls right after a conversion change commits: appends the account's
 * events to the log and counts them into the stats read model (or leaves them to the stats lease's
 * holder or the worker). The stats model depends on this data, never the other way round, so the composition
 * root hands it in (docs/decisions/0046-stats-read-contract.md).
 */
export type ConversionCounter = (publisherId: string) => Promise<unknown>;

export class ConversionsData extends DomainHandle {
  private counter: ConversionCounter | undefined;

  /** Sets the counter of conversion changes (the composition root, once per handle). */
  countChangesWith(counter: ConversionCounter): void {
    this.counter = counter;
  }

  /**
   * A conversion change of the account was written (its event flagged for the log): counted now. A
   * failure is not the write's: the event stays in the log (or flagged for it) and the worker's pass counts it.
   */
  async conversionChanged(publisherId: string): Promise<void> {
    await this.counter?.(publisherId).catch(() => undefined);
  }

  /** Accounts that have conversions (the ledger's migration walks them), after `after`, in id order. */
  async publishersAfter(after: string, limit: number): Promise<string[]> {
    const ids = (await open(this).Conversion.distinct('publisher_id', after ? { publisher_id: { $gt: after } } : {})) as string[];
    return ids.sort().slice(0, limit);
  }

  /** Network bookings the ledger has not booked yet (of one account, or any), at most `limit`. */
  async unbookedNetworkBookings(limit: number, publisherId?: string): Promise<ConversionRecord[]> {
    return open(this)
      .Conversion.find({ ledger_pending: true, ...(publisherId ? { publisher_id: publisherId } : {}) })
      .limit(limit)
      .lean<ConversionRecord[]>();
  }

  /** The ledger booked this network booking. */
  async networkBookingBooked(id: string): Promise<void> {
    await open(this).Conversion.updateOne({ _id: id }, { $unset: { ledger_pending: '' } });
  }

  /** The account's bookings by the network (`source: ledger`), for the ledger's corrections (at most `limit`, oldest first). */
  async networkBookings(publisherId: string, limit: number): Promise<ConversionRecord[]> {
    return open(this)
      .Conversion.find({ publisher_id: publisherId, status: 'approved', source: 'ledger' })
      .sort({ created_at: 1, _id: 1 })
      .limit(limit)
      .lean<ConversionRecord[]>();
  }

  /**
   * Commission marked paid before the ledger existed (`paid: true`, approved), per currency: what the
   * ledger's migration books as one payout so the balance stays what was owed.
   */
  async paidBeforeLedger(publisherId: string): Promise<Array<{ currency: string; amounts: string[] }>> {
    const rows = await open(this)
      .Conversion.find({ publisher_id: publisherId, status: 'approved', paid: true }, { commission: 1, currency: 1 })
      .lean<Array<Pick<ConversionRecord, 'commission' | 'currency'>>>();
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.currency, [...(by.get(r.currency) ?? []), r.commission.toString()]);
    return [...by].map(([currency, amounts]) => ({ currency, amounts }));
  }

  /** Of each sale or network booking in `ids` (the account's): its program (null: none) and when it occurred (a statement's lines). */
  async programsAndDates(publisherId: string, ids: string[]): Promise<Map<string, { program_id: number | null; occurred_at: Date }>> {
    const rows = await open(this)
      .Conversion.find({ _id: { $in: [...new Set(ids)] }, publisher_id: publisherId }, { program_id: 1, occurred_at: 1 })
      .lean<Array<{ _id: string; program_id?: number; occurred_at: Date }>>();
    return new Map(rows.map((r) => [r._id, { program_id: r.program_id ?? null, occurred_at: r.occurred_at }]));
  }

  /** Stores conversions in bulk (the seed's history); ones already stored are left as they are. */
  async insertRows(rows: ConversionRow[]): Promise<number> {
    return (await insertManyTolerant(open(this).Conversion.collection, rows as never[])).inserted.size;
  }

  /**
   * Conversions a version before the events log's postbacks consumer left in its outbox (flagged
   * `outbox_since`, a field the schema no longer has: read through the driver), at most `limit`, with
   * their events: the outbox migration (@cw/postbacks) delivers their unpublished ones.
   */
  async legacyOutbox(limit: number): Promise<ConversionRecord[]> {
    return (await open(this)
      .Conversion.collection.find({ outbox_since: { $exists: true } })
      .limit(limit)
      .toArray()) as unknown as ConversionRecord[];
  }

  /** The outbox migration delivered these conversions' events: their outbox flags go. */
  async legacyOutboxDone(ids: string[]): Promise<void> {
    await open(this).Conversion.collection.updateMany(
      { _id: { $in: ids as never[] } },
      { $unset: { outbox_since: '', outbox_claim: '', outbox_claim_until: '' } },
    );
  }
}

/**
 * The conversions models, for the libs split out of this one (`@cw/events-feed`, `@cw/stats`,
 * `@cw/reports`, `@cw/conversions-operator`) and this lib's own use cases; no other lib imports it.
 */
export const conversionsModels = (data: ConversionsData): ConversionsModels => open(data);

export const conversionsDomain = defineDomain(
  'conversions',
  {
    Conversion: [conversionSchema, 'conversions'],
    AttributionSpend: [attributionSpendSchema, 'attribution_spends'],
  },
  (m: ConversionsModels) => new ConversionsData(m),
);
