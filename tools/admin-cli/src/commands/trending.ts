/** Trending opportunities: through the trending lib. */
import { operatorCreatePlan, operatorReleasePlan, operatorSubscribeTrending, type NewPlanItem } from '@cw/trending';
import { list, str, url, UsageError, type CommandSpec } from './shared';

export const TRENDING_COMMANDS: Record<string, CommandSpec> = {
  'publisher:subscribe-trending': {
    summary: 'Subscribe an account to trending opportunities in some channels (--channels none unsubscribes)',
    options: {
      publisher: { type: 'string', required: true, doc: 'account id' },
      channels: { type: 'string', required: true, doc: 'coupon,content,social or none' },
    },
    run: async (deps, o) => {
      const channels = str(o, 'channels') === 'none' ? [] : (list(o, 'channels') ?? []);
      if (!channels.length && str(o, 'channels') !== 'none') throw new UsageError('--channels must list coupon, content or social, or be none');
      return operatorSubscribeTrending(deps, deps.operator, { publisher: str(o, 'publisher')!, channels });
    },
  },
  'trending:plan-create': {
    summary: 'Create a trending plan for one audience country and channel (unreleased until trending:plan-release)',
    options: {
      title: { type: 'string', required: true, doc: 'shown to operators' },
      country: { type: 'string', required: true, doc: 'ISO alpha-2 audience country' },
      channel: { type: 'string', required: true, doc: 'coupon, content or social' },
      items: { type: 'string', required: true, doc: 'JSON array of {program_id, title, score 0-1, landing_url?}' },
    },
    run: async (deps, o) => {
      let items: NewPlanItem[];
      try {
        items = JSON.parse(str(o, 'items')!);
      } catch {
        throw new UsageError('--items must be a JSON array of {program_id, title, score, landing_url?}');
      }
      if (
        !Array.isArray(items) ||
        items.some(
          (i) =>
            typeof i !== 'object' ||
            i === null ||
            !Number.isInteger(i.program_id) ||
            typeof i.title !== 'string' ||
            typeof i.score !== 'number' ||
            (i.landing_url !== undefined && typeof i.landing_url !== 'string'),
        )
      ) {
        throw new UsageError('--items must be a JSON array of {program_id (integer), title (string), score (number), landing_url? (string)}');
      }
      for (const i of items) if (i.landing_url !== undefined) i.landing_url = url(i.landing_url, 'items landing_url');
      return operatorCreatePlan(deps, deps.operator, {
        title: str(o, 'title')!,
        country: str(o, 'country')!.toUpperCase(),
        channel: str(o, 'channel')!,
        items,
      });
    },
  },
  'trending:plan-release': {
    summary: 'Release a trending plan now (subscribed publishers see it)',
    options: { id: { type: 'string', required: true, doc: 'plan id (tpl_…)' } },
    run: async (deps, o) => {
      if (!(await operatorReleasePlan(deps, deps.operator, { id: str(o, 'id')! })))
        throw new UsageError(`plan ${str(o, 'id')} does not exist or is already released`);
      return { id: str(o, 'id'), released: true };
    },
  },
};
