/**
 * The postbacks domain's data: each publisher's postback configuration (its sealed secret, target
 * and circuit breaker) and the deliveries of sale events to it. Other libs reach it through
 * `PostbacksData`'s methods; the models stay here.
 */
import type { Model } from 'mongoose';
import { defineDomain, modelVault } from '@cw/db';
import { postbackConfigSchema, type PostbackConfigDoc } from './postback-config.schema';
import { postbackDeliverySchema, type DELIVERY_STATUSES, type PostbackDeliveryDoc } from './postback-delivery.schema';

export interface PostbacksModels {
  PostbackConfig: Model<PostbackConfigDoc>;
  PostbackDelivery: Model<PostbackDeliveryDoc>;
}

const { DomainHandle, open } = modelVault<PostbacksModels>('postbacks');

export class PostbacksData extends DomainHandle {
  #onBreakerOpen: Array<(publisherId: string) => Promise<void>> = [];

  /** Tells `listener` each time a configuration's circuit breaker opens (the composition root: the "postback failing" notice). */
  onBreakerOpen(listener: (publisherId: string) => Promise<void>): void {
    this.#onBreakerOpen.push(listener);
  }

  /** Called by the dispatcher when it opened a configuration's breaker; a listener's failure changes nothing in delivery. */
  async breakerOpened(publisherId: string): Promise<void> {
    for (const listener of this.#onBreakerOpen) await listener(publisherId).catch(() => undefined);
  }

  /** Deliveries kept in this status (operator metrics). */
  deliveriesIn(status: (typeof DELIVERY_STATUSES)[number], maxTimeMs: number): Promise<number> {
    return open(this).PostbackDelivery.countDocuments({ status }).maxTimeMS(maxTimeMs).exec();
  }
}

/** The postbacks lib's own models (not exported from the lib). */
export const postbacksModels = (data: PostbacksData): PostbacksModels => open(data);

export const postbacksDomain = defineDomain(
  'postbacks',
  { PostbackConfig: [postbackConfigSchema, 'postback_configs'], PostbackDelivery: [postbackDeliverySchema, 'postback_deliveries'] },
  (m: PostbacksModels) => new PostbacksData(m),
);
