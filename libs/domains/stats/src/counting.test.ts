/** Counting a tracker batch of clicks: grouped by attribution and quarter hour, exactly what counting each click adds. */
import { describe, expect, it } from 'vitest';
import { Increments } from './cells';
import { clickIncrements } from './counting';
import { storedIncs } from './writer';

const START = Date.parse('2026-11-30T23:20:00Z');

/** A batch over accounts, links, programs, sub-IDs and an hour across a day's and a month's end, some clicks bots. */
function batch(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    publisher_id: i % 7 === 0 ? 'pub_b' : 'pub_a',
    link_id: `Lk${i % 3}`,
    program_id: 1000 + (i % 2),
    campaign_id: 500 + (i % 2),
    subid: i % 4 === 0 ? '' : `sub-${i % 3}`,
    created_at: new Date(START + i * 4_000),
    is_bot: i % 13 === 0,
  }));
}

const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => a.id.localeCompare(b.id));

describe('clickIncrements', () => {
  it('adds what counting the clicks one by one adds, cell for cell and slot for slot', () => {
    const clicks = batch(1000);
    const one = new Increments();
    for (const c of clicks)
      if (!c.is_bot)
        one.clicks(
          { publisher_id: c.publisher_id, program_id: c.program_id, campaign_id: c.campaign_id, subid: c.subid, link_id: c.link_id },
          c.created_at.getTime(),
        );
    const grouped = clickIncrements(clicks);
    expect(byId(grouped)).toEqual(byId(storedIncs(one.nonZero())));
    // Quarter hours on both sides of midnight and of the month's end, so days and months differ.
    expect(new Set(grouped.map((c) => c.dims.t.valueOf())).size).toBeGreaterThan(2);
  });

  it('counts no bot and nothing for a batch of bots', () => {
    expect(clickIncrements(batch(26).filter((c) => c.is_bot))).toEqual([]);
  });
});
