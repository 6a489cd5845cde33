/**
 * `links:health`, recurring (docs/decisions/0064-link-health.md): one pass over every link
 * (@cw/links `checkLinkHealth`): each link's target judged from the programs and the catalog, the
 * changed states written, and the clicks lost by the links still unhealthy recounted from the
 * stats read model's per-link view (@cw/stats `readFacts`, read only). Accounts whose links lost
 * more clicks are mailed (`links_unhealthy`, at most once per account and day). Links with
 * `check_landing` have their landing URL asked too, through the postbacks' delivery agent (its DNS
 * lookup refuses non-public addresses; POSTBACK_ALLOW_INSECURE lifts that, as for postbacks).
 */
import { checkLinkHealth, LANDING_TIMEOUT_MS, landingProbe, type ClicksSince, type HealthPassResult } from '@cw/links';
import { notifyPeople } from '@cw/notifications';
import { createDeliveryAgent } from '@cw/postbacks';
import type { PlatformData } from '@cw/runtime';
import { readFacts } from '@cw/stats';
import type { UseCaseDeps } from '@cw/usecase';
import type { JobDefinition } from './job';

export const LINK_HEALTH_JOB = 'links:health';
/** How often the pass runs: a paused program or a sold-out product shows within this (and the pass's own time). */
export const LINK_HEALTH_EVERY_MS = 15 * 60_000;

const QUARTER_MS = 15 * 60_000;

/**
 * Human clicks of each link from the quarter hour `since` falls in (the read model's grain) to the
 * end of the current quarter hour: one read per distinct start among the links.
 */
export function clicksFromStats(deps: Pick<UseCaseDeps<PlatformData>, 'data'>): ClicksSince {
  return async (publisherId, links, now) => {
    const to = Math.ceil(now.getTime() / QUARTER_MS) * QUARTER_MS;
    const byStart = new Map<number, string[]>();
    for (const l of links) {
      const from = Math.floor(l.since.getTime() / QUARTER_MS) * QUARTER_MS;
      byStart.set(from, [...(byStart.get(from) ?? []), l.id]);
    }
    const out = new Map<string, number>();
    for (const [from, linkIds] of byStart)
      for (const f of await readFacts(deps, { publisherId, from, to, linkIds }))
        if (f.link_id && f.clicks) out.set(f.link_id, (out.get(f.link_id) ?? 0) + f.clicks);
    return out;
  };
}

export function linkHealthJobs(
  deps: UseCaseDeps<PlatformData>,
  onPass: (r: Omit<HealthPassResult, 'losing'> & { mailed: number; ms: number }) => void,
): JobDefinition[] {
  return [
    {
      name: LINK_HEALTH_JOB,
      // One pass at a time across workers; a worker that dies holding it frees it after an hour.
      options: { concurrency: 1, lockLifetime: 60 * 60_000 },
      run: async () => {
        const t = Date.now();
        const agent = createDeliveryAgent({ allowInsecure: deps.config.postbackAllowInsecure, timeoutMs: LANDING_TIMEOUT_MS });
        let r: HealthPassResult;
        try {
          const landing = landingProbe({ dispatcher: agent, allowInsecure: deps.config.postbackAllowInsecure });
          r = await checkLinkHealth(deps, { clicksSince: clicksFromStats(deps), landing });
        } finally {
          await agent.close();
        }
        let mailed = 0;
        for (const publisherId of r.losing) if (await notifyPeople(deps, { kind: 'links_unhealthy', publisherId })) mailed++;
        onPass({ links: r.links, changed: r.changed, unhealthy: r.unhealthy, mailed, ms: Date.now() - t });
      },
    },
  ];
}
