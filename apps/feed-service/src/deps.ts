import type { AppDepsOf } from '@cw/runtime';

/**
 * What the feed service uses: the service stack and the data of these domains only (decision record
 * 0068). Its createApp takes this type, so a route reaching another domain's data is a type error.
 */
export type FeedServiceDeps = AppDepsOf<'auth' | 'feeds' | 'catalog' | 'programs' | 'links'>;
