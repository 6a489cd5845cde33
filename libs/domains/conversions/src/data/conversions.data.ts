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

/** The outbox free for a pump to claim at `now`: no claim, or a claim whose lease ended. */
const freeAt = (now: Date) => ({ $or: [{ outbox_claim_until: null }, { outbox_claim_until: { $lte: now } }] });

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
   * The outbox (sale events not yet turned into deliveries, kept inside each conversion): claims up
   * to `limit` conversions, oldest event first, under `claim` until `until`, and answers those this
   * claim holds (a pump that died is taken over after its lease).
   */
  async claimOutbox(claim: string, limit: number, until: Date, now: Date): Promise<ConversionRecord[]> {
    const ids = (
      await open(this)
        .Conversion.find({ outbox_since: { $exists: true }, ...freeAt(now) }, { _id: 1 })
        .sort({ outbox_since: 1 })
        .limit(limit)
        .lean<Array<{ _id: string }>>()
    ).map((r) => r._id);
    if (!ids.length) return [];
    await open(this).Conversion.updateMany({ _id: { $in: ids }, ...freeAt(now) }, { $set: { outbox_claim: claim, outbox_claim_until: until } });
    return open(this)
      .Conversion.find({ _id: { $in: ids }, outbox_claim: claim })
      .lean<ConversionRecord[]>();
  }

  /**
   * Marks these events published, then takes the claimed conversions out of the outbox when no event
   * arrived since they were read (their event count unchanged); otherwise only the claim goes.
   */
  async publishedOutbox(claim: string, rows: ConversionRecord[], published: Array<{ conversion: string; event: string }>, now: Date): Promise<void> {
    if (published.length)
      await open(this).Conversion.bulkWrite(
        published.map((p) => ({ updateOne: { filter: { _id: p.conversion, 'events._id': p.event }, update: { $set: { 'events.$.published_at': now } } } })),
        { ordered: false },
      );
    await open(this).Conversion.bulkWrite(
      rows.flatMap((c) => [
        {
          updateOne: {
            filter: { _id: c._id, outbox_claim: claim, events: { $size: c.events.length } },
            update: { $unset: { outbox_since: '', outbox_claim: '', outbox_claim_until: '' } },
          },
        },
        { updateOne: { filter: { _id: c._id, outbox_claim: claim }, update: { $unset: { outbox_claim: '', outbox_claim_until: '' } } } },
      ]),
      { ordered: true },
    );
  }

  /** When the oldest event still in the outbox happened (null: none waiting). */
  async oldestOutboxEvent(maxTimeMs: number): Promise<Date | null> {
    // The outbox index holds only conversions with unpublished events, oldest first.
    const row = await open(this)
      .Conversion.findOne({ outbox_since: { $exists: true } }, { outbox_since: 1 })
      .sort({ outbox_since: 1 })
      .maxTimeMS(maxTimeMs)
      .lean<{ outbox_since: Date }>();
    return row ? new Date(row.outbox_since) : null;
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
