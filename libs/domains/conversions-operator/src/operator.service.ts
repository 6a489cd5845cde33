/**
 * The network's operators acting on conversions (the admin CLI, the portal's operator area):
 * support reads; admin approves, declines and reverses through the lifecycle and backfills
 * (corrections are the ledger's: @cw/ledger). Every act is recorded in the audit log of the account it touched.
 */
import type { AuditData } from '@cw/audit';
import { recordOperatorAct } from '@cw/audit';
import { operatorUseCase, type UseCaseDeps } from '@cw/usecase';
import { changeStatus, conversionsModels, conversionView, type ConversionRecord, type ConversionsDeps, type ConversionStatus } from '@cw/conversions';
import { appendPendingEvents, pruneEvents, type EventsFeedDeps } from '@cw/events-feed';

/** The sales core's and the events feed's deps, and the audit log. */
export type OperatorConversionsDeps = ConversionsDeps & EventsFeedDeps & UseCaseDeps<{ audit: AuditData }>;

const own = (deps: OperatorConversionsDeps) => conversionsModels(deps.data.conversions);

export const operatorListConversions = operatorUseCase(
  'support',
  async function operatorListConversions(
    deps: OperatorConversionsDeps,
    _operator,
    input: { publisher?: string; merchant?: number; status?: ConversionStatus; limit?: number },
  ) {
    const filter: Record<string, unknown> = {};
    if (input.publisher) filter.publisher_id = input.publisher;
    if (input.merchant !== undefined) filter.campaign_id = input.merchant;
    if (input.status) filter.status = input.status;
    const rows = await own(deps)
      .Conversion.find(filter, { events: 0 })
      .sort({ occurred_at: -1, _id: 1 })
      .limit(input.limit ?? 50)
      .lean<ConversionRecord[]>();
    const names = await deps.data.programs.merchantNames(rows.flatMap((r) => (r.campaign_id === undefined || r.campaign_id === null ? [] : [r.campaign_id])));
    return rows.map((r) => ({
      ...conversionView(r, r.campaign_id === undefined ? undefined : names.get(r.campaign_id)),
      publisher_id: r.publisher_id,
      order_id: r.order_ref ?? null,
    }));
  },
);

/** One status change through the lifecycle (the same rules and one event per change as the merchant's), audited. */
export const operatorChangeConversionStatus = operatorUseCase(
  'admin',
  async function operatorChangeConversionStatus(
    deps: OperatorConversionsDeps,
    operator,
    input: { id: string; to: 'approved' | 'declined'; onlyFrom?: 'approved' },
  ) {
    const c = await changeStatus(deps, input.id, input.to, { onlyFrom: input.onlyFrom });
    await recordOperatorAct(
      deps.data.audit,
      operator,
      'conversion_status_changed',
      { conversion_id: c._id, to: c.status, ...(input.onlyFrom ? { reversed: true } : {}) },
      c.publisher_id,
    );
    return c;
  },
);

/** Puts the sale events of conversions from before the events feed existed into it (logged ones are skipped). */
export const operatorBackfillEvents = operatorUseCase('admin', async function operatorBackfillEvents(deps: OperatorConversionsDeps, operator) {
  const flagged = (await own(deps).Conversion.updateMany({ source: 'v1', 'events.0': { $exists: true } }, { $set: { log_pending: true } })).modifiedCount;
  let appended = 0;
  for (let n = -1; n !== 0;) appended += n = await appendPendingEvents(deps);
  await recordOperatorAct(deps.data.audit, operator, 'conversions_backfilled', { events_feed: flagged, appended });
  return { conversions: flagged, appended };
});

/** Removes sale events logged before `before` from the events feed (cursors before them then answer 410). */
export const operatorPruneEvents = operatorUseCase(
  'admin',
  async function operatorPruneEvents(deps: OperatorConversionsDeps, operator, input: { before: Date }) {
    const removed = await pruneEvents(deps, input.before);
    await recordOperatorAct(deps.data.audit, operator, 'events_pruned', { before: input.before.toISOString(), removed });
    return { removed };
  },
);
