import { createHash } from 'node:crypto';

/**
 * A delivery's id: one per (event, configuration), the same whoever makes it (the log's consumer,
 * the outbox migration, a retry of either), so an event is never delivered twice to one configuration.
 */
export const deliveryIdOf = (eventId: string, configId: string) =>
  `dlv_${createHash('sha256').update(`${eventId}\u0000${configId}`).digest('base64url').slice(0, 22)}`;
