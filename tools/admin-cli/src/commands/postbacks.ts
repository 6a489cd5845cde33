/** Postback deliveries and signing secrets: through the postbacks lib's operator use cases (audited). */
import { operatorBackfillDeliveries, operatorListDeliveries, operatorMigrateOutbox, operatorRedeliver, operatorResealSecrets } from '@cw/postbacks';
import { choice, int, mustPublisher, str, UsageError, type CommandSpec } from './shared';

export const POSTBACKS_COMMANDS: Record<string, CommandSpec> = {
  'postback:deliveries': {
    summary: "List an account's postback deliveries, newest first",
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      status: { type: 'string', doc: 'pending, succeeded, failed or dead' },
      limit: { type: 'string', doc: 'at most this many (default 50)' },
    },
    run: (deps, o) =>
      operatorListDeliveries(deps, deps.operator, {
        publisher: str(o, 'publisher')!,
        status: choice(o, 'status', ['pending', 'succeeded', 'failed', 'dead'] as const),
        limit: int(o, 'limit'),
      }),
  },
  'postback:reseal': {
    summary: 'Re-seal every stored postback signing secret under the newest key of SECRET_KEYS (after adding a key; then older keys can be retired)',
    options: {},
    run: (deps, _o, progress) => operatorResealSecrets(deps, deps.operator, {}, progress),
  },
  'postback:backfill': {
    summary:
      'From an older version: deliver the sale events the retired conversions outbox still holds (then unflag them), and give deliveries their expiry by outcome (safe to repeat)',
    options: {},
    run: async (deps) => {
      const outbox = await operatorMigrateOutbox(deps, deps.operator);
      const { deliveries } = await operatorBackfillDeliveries(deps, deps.operator);
      return { conversions: outbox.conversions, deliveries: outbox.deliveries + deliveries };
    },
  },
  'postback:redeliver': {
    summary: 'Send failed or dead deliveries again under their delivery ids: one (--id) or every dead one of an account (--all-dead, progress bar)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      id: { type: 'string', doc: 'delivery id' },
      'all-dead': { type: 'boolean', doc: 'every dead delivery of the account' },
    },
    run: async (deps, o, progress) => {
      const publisher = await mustPublisher(deps, str(o, 'publisher')!);
      if (!str(o, 'id') === !o['all-dead']) throw new UsageError('give --id or --all-dead');
      return operatorRedeliver(deps, deps.operator, { publisher: publisher._id, id: str(o, 'id'), allDead: o['all-dead'] === true }, progress);
    },
  },
};
