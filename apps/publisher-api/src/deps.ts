import type { AppDepsOf } from '@cw/runtime';

/**
 * What the publisher API uses: the service stack and the data of these domains only (decision record
 * 0068). Its createApp takes this type, so a route reaching another domain's data is a type error.
 */
export type PublisherApiDeps = AppDepsOf<
  | 'auth'
  | 'catalog'
  | 'codes'
  | 'conversions'
  | 'eventsFeed'
  | 'idempotency'
  | 'inquiries'
  | 'ledger'
  | 'links'
  | 'offers'
  | 'payouts'
  | 'postbacks'
  | 'programs'
  | 'stats'
  | 'trending'
  | 'audit'
>;
