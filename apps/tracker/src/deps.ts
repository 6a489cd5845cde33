import type { AppDepsOf } from '@cw/runtime';

/**
 * What the tracker uses: the service stack and the data of these domains only (decision record
 * 0068). Its createApp takes this type, so a route reaching another domain's data is a type error.
 */
export type TrackerDeps = AppDepsOf<'auth' | 'links' | 'programs' | 'conversions' | 'codes' | 'inquiries' | 'audit' | 'catalog' | 'stats' | 'eventsFeed'>;
