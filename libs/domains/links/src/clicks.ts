/**
 * Clicks: the record a followed link leaves (built here, stored by the tracker), and the
 * publisher's view of its clicks.
 */
import { createHmac } from 'node:crypto';
import type { Policy, Principal } from '@cw/auth';
import { CLICK_LIST_ORDER, type ClickRow } from './data/links.data';
import type { LinksDeps } from './deps';
import { CAMPAIGN_ID_PATTERN } from '@cw/programs';
import { useCase, CURSOR_PAGING, pageSizeInput, pageWindow, type InputOf } from '@cw/usecase';
import { BOT_REASONS, userAgentReason, type BotReason } from './bot-detection';
import type { ClickIds } from './click-ids';
import { SUBID_PATTERN } from './link-requests';

/** What the tracker knows about the link being followed. */
export interface ClickTarget {
  linkId: string;
  publisherId: string;
  programId: number;
  merchantId: number;
  subid: string;
}

/** What the request says about the reader. */
export interface ClickRequest {
  userAgent: string;
  referrer: string;
  /** The client address: only its keyed hash is stored. */
  ip: string;
  /**
   * The per-link rate: counts this click by its address hash (never called for a known bot agent);
   * true when over it. An object, not a closure made per click (a closure per click costs more
   * under tsx, which names every function it makes: bench/README.md). `undefined`: no per-link
   * rate (data made outside a redirect).
   */
  rates: { hit(ipHash: string, linkId: string, now: number): boolean } | undefined;
  /** Over the per-address budget (counted elsewhere, never refused). */
  overIpLimit: boolean;
  /** The address is in a hosting or data-centre network (`NetworkLookup.datacenter`): a bot signal. */
  datacenter?: boolean;
  /** The index of the link's route that answered (smart links); absent or -1: the link's own target. */
  route?: number;
  /** A product link's GTIN fallback answered: the link's own program (the target is the program that answered). */
  fallbackFrom?: number;
}

const clip = (s: string | undefined, n: number) => (s ?? '').slice(0, n);

const ADDRESS_MEMO_MAX = 10_000;
const addressMemos = new WeakMap<Buffer, Map<string, string>>();

/** The keyed hash of a client address (never the address itself); recent addresses memoised. */
export function addressHash(key: Buffer, ip: string): string {
  let memo = addressMemos.get(key);
  if (!memo) addressMemos.set(key, (memo = new Map()));
  let hash = memo.get(ip);
  if (hash === undefined) {
    if (memo.size >= ADDRESS_MEMO_MAX) memo.clear();
    memo.set(ip, (hash = createHmac('sha256', key).update(`ip:${ip}`).digest('hex').slice(0, 32)));
  }
  return hash;
}

const AGENT_MEMO_MAX = 1_000;
/** A stored user agent is clipped to this many characters. */
const AGENT_MAX = 512;
const agents = new Map<string, { ua: string; reason: BotReason | undefined }>();

/**
 * A user agent clipped, with its bot reason; recent ones memoised (a few browsers' agents make most
 * clicks): the pattern runs once per agent, and a buffered click keeps the memo's one copy of the
 * string, not the request's.
 */
function knownAgent(raw: string): { ua: string; reason: BotReason | undefined } {
  // Longer agents (clipped, rare) are not kept: the memo holds at most AGENT_MEMO_MAX short strings.
  if (raw.length > AGENT_MAX) {
    const ua = clip(raw, AGENT_MAX);
    return { ua, reason: userAgentReason(ua) };
  }
  let known = agents.get(raw);
  if (!known) {
    if (agents.size >= AGENT_MEMO_MAX) agents.clear();
    agents.set(raw, (known = { ua: raw, reason: userAgentReason(raw) }));
  }
  return known;
}

/**
 * The click of one followed link: user agent and referrer clipped, address hashed, bot flag with
 * its reason, and a signed click id that carries the link, the time and the bot flag (click-ids.ts).
 */
export function clickRecord(target: ClickTarget, req: ClickRequest, ids: ClickIds, key: Buffer, now = new Date()): ClickRow {
  const { ua, reason: agentReason } = knownAgent(req.userAgent);
  const ipHash = addressHash(key, req.ip);
  // The agent's reason first (it says more: a crawler or an assistant, wherever it runs), then a
  // data-centre address; the per-link rate counts every click not already known as a bot; either rate makes it one.
  const reason: BotReason | undefined =
    agentReason ??
    (req.datacenter ? 'datacenter' : undefined) ??
    ((req.rates?.hit(ipHash, target.linkId, now.getTime()) ?? false) || req.overIpLimit ? 'rate' : undefined);
  const row: ClickRow = {
    _id: ids.next(target.linkId, { isBot: reason !== undefined }, now.getTime()),
    link_id: target.linkId,
    publisher_id: target.publisherId,
    program_id: target.programId,
    campaign_id: target.merchantId,
    subid: target.subid,
    created_at: now,
    user_agent: ua,
    ip_hash: ipHash,
    referrer: clip(req.referrer, 1024),
    is_bot: reason !== undefined,
  };
  if (reason) row.bot_reason = reason;
  if (req.route !== undefined && req.route >= 0) row.route = req.route;
  if (req.fallbackFrom !== undefined) row.fallback_from = req.fallbackFrom;
  return row;
}

export const CLICKS_INPUT = {
  type: 'object',
  additionalProperties: false,
  properties: {
    sub_id: { type: 'string', pattern: SUBID_PATTERN },
    campaign_id: { type: 'string', pattern: CAMPAIGN_ID_PATTERN, description: 'Campaign (merchant) id.' },
    deeplink_id: { type: 'string', pattern: '^[A-Za-z0-9]{1,64}$', description: 'A link id.' },
    include_bots: { type: 'boolean', default: false, description: 'Also list clicks flagged as bots.' },
    bot_reason: {
      type: 'string',
      enum: BOT_REASONS,
      description:
        'Only clicks flagged for this reason (implies include_bots): `agent` lists the visits of assistants fetching a page for a person apart, `datacenter` the clicks from hosting and data-centre networks.',
    },
    fallback: {
      type: 'boolean',
      description: "true: only the clicks a product link's GTIN fallback saved (answered by another program); false: only the others.",
    },
    ...CURSOR_PAGING,
    page_size: pageSizeInput(200),
  },
} as const;

const CLICKS_POLICY: Policy = { budget: 'reporting', scope: 'reports:read' };

/** The caller's recorded clicks, newest first; bots only when asked for; never the address hash. */
export const listClicks = useCase(
  CLICKS_POLICY,
  async function listClicks(deps: LinksDeps, principal: Principal, input: InputOf<typeof CLICKS_INPUT>) {
    const w = pageWindow({ list: 'clicks', account: principal.publisher._id, secret: deps.config.secretKey }, CLICK_LIST_ORDER, input);
    const rows = await deps.data.links.listClicks(
      {
        publisherId: principal.publisher._id,
        subid: input.sub_id,
        merchantId: input.campaign_id === undefined ? undefined : Number(input.campaign_id),
        linkId: input.deeplink_id,
        includeBots: input.include_bots || input.bot_reason !== undefined,
        botReason: input.bot_reason,
        fallback: input.fallback,
      },
      w,
      input.page_size + 1,
    );
    return w.envelope(rows, (page) =>
      page.map((c) => ({
        id: c._id,
        created_at: c.created_at,
        deeplink_id: c.link_id,
        program_id: c.program_id,
        campaign_id: c.campaign_id,
        sub_id: c.subid || null,
        referrer: c.referrer || null,
        user_agent: c.user_agent || null,
        is_bot: c.is_bot,
        bot_reason: c.bot_reason ?? null,
        route: c.route ?? null,
        fallback: c.fallback_from != null ? { from_program: c.fallback_from, to_program: c.program_id } : null,
      })),
    );
  },
  CLICKS_INPUT,
);
