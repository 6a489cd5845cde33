/**
 * The network's operators acting on postbacks (the admin CLI, the portal's operator area): support
 * reads deliveries; admin redelivers, reseals the stored signing secrets, backfills expiries and
 * delivers what the retired conversions' outbox still holds.
 * Every act is recorded in the audit log (never a secret, never a full postback URL).
 */
import { recordOperatorAct } from '@cw/audit';
import { ApiError } from '@cw/errors';
import { operatorUseCase } from '@cw/usecase';
import type { DeliveryRow } from './dispatch';
import { deliveryView, redeliverOf } from './deliveries.service';
import { own, type PostbacksDeps } from './deps';
import { migrateOutbox } from './outbox-migration';
import { open, seal, sealedWithOlderKey, type SealedSecret } from './secret-box';

type Progress = (done: number, total: number) => void;

export const operatorListDeliveries = operatorUseCase(
  'support',
  async function operatorListDeliveries(
    deps: PostbacksDeps,
    _operator,
    input: { publisher: string; status?: 'pending' | 'succeeded' | 'failed' | 'dead'; limit?: number },
  ) {
    const rows = await own(deps)
      .PostbackDelivery.find({ publisher_id: input.publisher, ...(input.status ? { status: input.status } : {}) }, { body: 0 })
      .sort({ created_at: -1, _id: 1 })
      .limit(input.limit ?? 50)
      .lean<DeliveryRow[]>();
    return rows.map((d) => deliveryView(d));
  },
);

/** Sends failed or dead deliveries of an account again: one (`id`) or every dead one (`allDead`). */
export const operatorRedeliver = operatorUseCase(
  'admin',
  async function operatorRedeliver(deps: PostbacksDeps, operator, input: { publisher: string; id?: string; allDead?: boolean }, progress?: Progress) {
    if (!input.id === !input.allDead) throw new ApiError({ code: 'invalid_parameter', detail: 'Give a delivery id or all dead deliveries, not both.' });
    const ids = input.id
      ? [input.id]
      : (await own(deps).PostbackDelivery.find({ publisher_id: input.publisher, status: 'dead' }, { _id: 1 }).lean()).map((d) => String(d._id));
    const done: string[] = [];
    for (const [i, id] of ids.entries()) {
      done.push((await redeliverOf(deps, input.publisher, id)).id);
      progress?.(i + 1, ids.length);
    }
    if (done.length)
      await recordOperatorAct(
        deps.data.audit,
        operator,
        'postback_redelivered',
        { deliveries: done.length, ids: done.slice(0, 100), all_dead: !!input.allDead },
        input.publisher,
      );
    return { redelivered: done.length, ids: done };
  },
);

/** Re-seals every stored signing secret under the newest key of SECRET_KEYS (then older keys can be retired). */
export const operatorResealSecrets = operatorUseCase(
  'admin',
  async function operatorResealSecrets(deps: PostbacksDeps, operator, _input: object, progress?: Progress) {
    const { keys } = deps.config;
    const total = await own(deps).PostbackConfig.countDocuments();
    let resealed = 0;
    let done = 0;
    for await (const c of own(deps).PostbackConfig.find({}, { secret: 1, previous_secret: 1 }).lean().cursor()) {
      const secret = c.secret as SealedSecret;
      const previous = (c.previous_secret ?? undefined) as SealedSecret | undefined;
      const $set: Record<string, SealedSecret> = {};
      if (sealedWithOlderKey(keys, secret)) $set.secret = seal(keys, open(keys, secret));
      if (previous?.data && sealedWithOlderKey(keys, previous)) $set.previous_secret = seal(keys, open(keys, previous));
      // Guarded by the values read: a secret rotated meanwhile is left as its rotation wrote it.
      if (Object.keys($set).length && (await own(deps).PostbackConfig.updateOne({ _id: c._id, 'secret.data': secret.data }, { $set })).modifiedCount)
        resealed++;
      progress?.(++done, total);
    }
    await recordOperatorAct(deps.data.audit, operator, 'postback_secrets_resealed', { key: keys.current.id, postbacks: total, resealed });
    return { key: keys.current.id, postbacks: total, resealed };
  },
);

/**
 * From a version before the postbacks read sale events from the events log: the events the
 * conversions' outbox still holds made deliveries, the outbox flags removed (./outbox-migration.ts;
 * the worker also runs it at start; safe to repeat).
 */
export const operatorMigrateOutbox = operatorUseCase('admin', async function operatorMigrateOutbox(deps: PostbacksDeps, operator) {
  const r = await migrateOutbox(deps);
  await recordOperatorAct(deps.data.audit, operator, 'conversions_backfilled', { outbox: r.conversions });
  return r;
});

/** Gives deliveries from before retention by outcome their expiry (safe to repeat). */
export const operatorBackfillDeliveries = operatorUseCase('admin', async function operatorBackfillDeliveries(deps: PostbacksDeps, operator) {
  const DAY = 86_400_000;
  let deliveries = 0;
  for (const [statuses, days] of [
    [['succeeded'], deps.config.postbackSucceededRetentionDays],
    [['pending', 'failed', 'dead'], deps.config.postbackFailedRetentionDays],
  ] as const) {
    const r = await own(deps).PostbackDelivery.updateMany(
      { expires_at: { $exists: false }, status: { $in: [...statuses] } },
      [{ $set: { expires_at: { $add: ['$updated_at', days * DAY] } } }],
      { updatePipeline: true },
    );
    deliveries += r.modifiedCount;
  }
  await recordOperatorAct(deps.data.audit, operator, 'postback_deliveries_backfilled', { deliveries });
  return { deliveries };
});
