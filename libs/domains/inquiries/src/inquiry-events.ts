/**
 * Inquiries as a source of the events feed (@cw/events-feed's event-source port): a decision
 * pushes its event (`inquiry.accepted` / `inquiry.rejected`) and `events_pending` in the write that
 * decides (./decide.ts); the feed appends it to the account's log under the account's lease (and
 * its postbacks, for configurations that opt in to these types) and clears the mark here. The
 * composition root registers `inquiryEventSource(data)`.
 */
import type { EventSource, PendingRow, SourceEvent } from '@cw/events-feed';
import type { InquiriesData } from './data/inquiries.data';
import type { InquiryRecord } from './data/inquiry.schema';
import { inquiriesModels } from './data/inquiries.data';
import { inquiryView } from './inquiries.service';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** One logged inquiry event: envelope + the inquiry as of now (its decision stands, so as of the event). */
export function inquiryEventBody(i: InquiryRecord, ev: { _id: string; type: string; created_at: Date }): SourceEvent['body'] {
  const v = inquiryView(i);
  return {
    id: ev._id,
    type: ev.type,
    event: ev.type.slice('inquiry.'.length),
    created_at: ev.created_at.toISOString(),
    publisher_id: i.publisher_id,
    inquiry: {
      ...v,
      occurred_at: iso(v.occurred_at),
      respond_by: iso(v.respond_by),
      decided_at: iso(v.decided_at),
      created_at: iso(v.created_at),
      updated_at: iso(v.updated_at),
      evidence: { clicks: v.evidence.clicks.map((c) => ({ ...c, clicked_at: iso(c.clicked_at) })) },
    },
  };
}

export function inquiryEventSource(data: { inquiries: InquiriesData }): EventSource {
  const { Inquiry } = inquiriesModels(data.inquiries);
  return {
    name: 'inquiries',
    hasPending: async (publisherId) => !!(await Inquiry.exists({ events_pending: true, publisher_id: publisherId })),
    pendingAccounts: async (limit) => ((await Inquiry.distinct('publisher_id', { events_pending: true })) as string[]).slice(0, limit),
    pending: async (publisherId, limit): Promise<PendingRow[]> => {
      const rows = await Inquiry.find({ events_pending: true, publisher_id: publisherId }).limit(limit).lean<InquiryRecord[]>();
      return rows.map((i) => ({
        events: i.events.map((e) => ({ id: e._id, type: e.type, created_at: e.created_at, body: inquiryEventBody(i, e) })),
        token: { id: i._id, n: i.events.length },
      }));
    },
    clear: async (_publisherId, rows) => {
      if (!rows.length) return;
      // Only where no event was pushed since the read (the array has the length it had).
      await Inquiry.bulkWrite(
        rows.map(({ token }) => {
          const { id, n } = token as { id: string; n: number };
          return { updateOne: { filter: { _id: id, events: { $size: n } }, update: { $unset: { events_pending: '' } } } };
        }),
        { ordered: false },
      );
    },
  };
}
