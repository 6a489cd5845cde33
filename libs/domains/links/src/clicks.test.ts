import { describe, expect, it } from 'vitest';
import { keyRing } from '@cw/config';
import { ClickIds } from './click-ids';
import { clickRecord, type ClickRequest, type ClickTarget } from './clicks';
import { packBucket, unpackBucket } from './data/click-bucket';

const ids = new ClickIds(keyRing(Buffer.alloc(32, 7)));
const key = Buffer.alloc(32, 9);
const target: ClickTarget = { linkId: 'lnkRoutes00001', publisherId: 'pub_a', programId: 1001, merchantId: 501, subid: '' };
const BROWSER = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const req = (over: Partial<ClickRequest>): ClickRequest => ({
  userAgent: BROWSER,
  referrer: '',
  ip: '203.0.113.7',
  rates: undefined,
  overIpLimit: false,
  ...over,
});

describe('the click of a routed link', () => {
  it('records the route that answered, kept through a stored bucket; none when the link answered', () => {
    const at = new Date(Date.UTC(2026, 11, 1, 12));
    const clicks = [
      clickRecord(target, req({ route: 0 }), ids, key, at),
      clickRecord(target, req({ route: 4 }), ids, key, new Date(at.getTime() + 5)),
      clickRecord(target, req({ route: -1 }), ids, key, new Date(at.getTime() + 9)),
      clickRecord(target, req({}), ids, key, new Date(at.getTime() + 12)),
    ];
    expect(clicks.map((c) => c.route)).toEqual([0, 4, undefined, undefined]);
    const back = unpackBucket(packBucket(clicks));
    expect(back.map((c) => c.route ?? null)).toEqual([0, 4, null, null]);
    // A bucket of clicks without routes carries no route column.
    expect(packBucket(clicks.slice(2)).r).toBeUndefined();
  });

  it('stores an assistant fetching for a person as a flagged agent click, kept apart from other bots', () => {
    const at = new Date(Date.UTC(2026, 11, 1, 12));
    const agent = clickRecord(
      target,
      req({ userAgent: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot' }),
      ids,
      key,
      at,
    );
    const bot = clickRecord(target, req({ userAgent: 'PostmanRuntime/7.39.0' }), ids, key, new Date(at.getTime() + 1));
    expect([agent.is_bot, agent.bot_reason, bot.is_bot, bot.bot_reason]).toEqual([true, 'agent', true, 'user_agent']);
    const back = unpackBucket(packBucket([agent, bot]), { includeBots: true });
    expect(back.map((c) => c.bot_reason)).toEqual(['agent', 'user_agent']);
    // Human-only readers (reports) leave both out.
    expect(unpackBucket(packBucket([agent, bot]), {})).toEqual([]);
  });
});
