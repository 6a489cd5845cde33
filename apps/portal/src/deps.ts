import type { AppDepsOf } from '@cw/runtime';

/**
 * What the portal uses: the service stack and the data of these domains only (decision record
 * 0068). Its createApp takes this type, so a route reaching another domain's data is a type error.
 */
export type PortalAppDeps = AppDepsOf<
  | 'people'
  | 'audit'
  | 'auth'
  | 'catalog'
  | 'codes'
  | 'conversions'
  | 'eventsFeed'
  | 'idempotency'
  | 'inquiries'
  | 'ledger'
  | 'links'
  | 'monetize'
  | 'notifications'
  | 'oauth'
  | 'payouts'
  | 'postbacks'
  | 'programs'
  | 'stats'
>;
