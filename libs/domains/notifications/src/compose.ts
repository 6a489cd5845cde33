/**
 * What each notification mail says, rendered when its job runs (from ids: the payout, the sale, the
 * week), with the unsubscribe link and headers every notification mail carries (RFC 2369 and
 * RFC 8058 one-click). Amounts are decimal strings formatted by Intl (exact: never a float).
 */
import type { MailMessage } from '@cw/mail';
import { linksLosingClicks } from '@cw/links';
import { payoutNoticeMail, statementOf, type PayoutNotice } from '@cw/payouts';
import { addDays, readFacts, zoneCalendar } from '@cw/stats';
import { toDisplayText } from '@cw/validation';
import { KIND_LABELS, type NotificationKind } from './kinds';
import type { NotificationsDeps } from './deps';
import type { InquiryDecidedNotice, Notice, ReversalNotice, WeeklySummaryNotice } from './notify';
import { unsubscribeToken } from './unsubscribe-token';

type Composed = Omit<MailMessage, 'to'>;

const base = (url: string) => url.replace(/\/+$/, '');

/** An exact decimal string in its currency, as a reader of English expects it. */
export function money(amount: string, currency: string): string {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(amount as unknown as number);
  } catch {
    return `${amount} ${currency}`;
  }
}

const count = (n: number) => new Intl.NumberFormat('en').format(n);

function reversalMail(n: ReversalNotice, name: string, portalUrl: string): Composed {
  return {
    subject: `A sale of ${name} was reversed after it was paid out`,
    text:
      `The merchant reversed the sale ${n.conversionId} of ${name}. Its commission, ${money(n.amount, n.currency)}, was already paid out ` +
      `(payout ${n.payoutId}), so it is taken from your balance and netted from the next payout. The entry is on your payments page:\n\n${base(portalUrl)}/payments\n`,
  };
}

/** Why an inquiry was rejected, in words (its reason codes: DESIGN.md "Attribution beyond the click"). */
const REJECTION_WORDS: Record<string, string> = {
  duplicate: 'the order is already credited (to this or another sale)',
  no_order: 'the merchant has no such order',
  returned: 'the order was returned or cancelled',
  outside_window: "no click of yours that the platform could verify was in the program's cookie window before the order",
  other: 'another reason; the merchant can tell you more',
};

/** The window rejects `other` when each verified click of the inquiry backs another accepted inquiry already (a click backs one order). */
const WINDOW_OTHER = 'each click of yours the platform verified for it already backs another accepted inquiry (a click backs one order)';

const DECIDERS: Record<string, string> = { merchant: 'The merchant', operator: "The network's operators", window: 'The platform' };

async function inquiryMail(deps: NotificationsDeps, n: InquiryDecidedNotice, name: string): Promise<Composed> {
  const program = await deps.data.programs.byId(Number(n.programId), { name: 1 }).catch(() => null);
  const programName = program?.name ? `${toDisplayText(program.name)} (program ${n.programId})` : `program ${n.programId}`;
  const order = toDisplayText(n.orderId).slice(0, 120);
  const who = DECIDERS[n.decidedBy] ?? 'The merchant';
  const late = n.decidedBy === 'window' ? ' The merchant did not answer by the inquiry’s deadline, so it was decided on its click evidence.' : '';
  const page = `${base(deps.config.portalUrl)}/inquiries`;
  if (n.status === 'accepted')
    return {
      subject: `Missing sale credited: order ${order} on ${name}`,
      text:
        `${who} accepted the missing-sale inquiry ${n.inquiryId} of ${name} for order ${order} (${money(n.amount, n.currency)}) on ${programName}.${late} ` +
        `The sale is credited as conversion ${n.conversionId ?? '(see the inquiry)'}; its commission is pending until the merchant approves it, like any sale.\n\n` +
        `Your missing sales: ${page}\n`,
    };
  return {
    subject: `Missing-sale inquiry rejected: order ${order} on ${name}`,
    text:
      `${who} rejected the missing-sale inquiry ${n.inquiryId} of ${name} for order ${order} (${money(n.amount, n.currency)}) on ${programName}: ` +
      `${n.decidedBy === 'window' && n.reason === 'other' ? WINDOW_OTHER : (REJECTION_WORDS[n.reason ?? 'other'] ?? REJECTION_WORDS.other)}.${late} A decision stands: filing the order again shows this inquiry.\n\n` +
      `Your missing sales: ${page}\n`,
  };
}

function postbackFailingMail(name: string, portalUrl: string): Composed {
  return {
    subject: `The postback endpoint of ${name} keeps failing`,
    text:
      `Postbacks to the endpoint of ${name} failed many times in a row, so deliveries are paused and tried again later (none is lost while it lasts). ` +
      `Check that the endpoint answers 2xx; its latest failures and a test event are on the postback settings page:\n\n${base(portalUrl)}/settings/postback\n\n` +
      `You get this mail at most once a day.\n`,
  };
}

/** What each health state means to the reader of the mail. */
const HEALTH_WORDS: Record<string, string> = {
  out_of_stock: 'the product is out of stock or no longer in the catalog',
  program_paused: 'the program is paused',
  program_ended: 'the program ended (or no longer serves the product’s market)',
  not_approved: 'you are no longer approved for the program',
  unreachable: 'the landing page does not answer',
};

/** The links that lost clicks while not ok (as of the last health pass), most first: at most 20. */
async function linksUnhealthyMail(deps: NotificationsDeps, publisherId: string, name: string): Promise<Composed> {
  const { links, unhealthy } = await linksLosingClicks(deps.data.links, deps.config.trackingUrl, publisherId, 20);
  const lost = links.reduce((n, l) => n + l.clicks_lost, 0);
  const day = (d: Date) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(d);
  const lines = [
    `Visitors keep clicking links of ${name} that cannot earn: ${count(lost)} clicks lost so far on the links below.`,
    '',
    ...links.map(
      (l, i) =>
        `${i + 1}. ${toDisplayText(l.landing_url).slice(0, 120)}${l.subid ? ` (sub-ID ${toDisplayText(l.subid).slice(0, 40)})` : ''}\n` +
        `   ${l.url}: ${HEALTH_WORDS[l.state] ?? l.state} since ${day(l.since)} UTC; ${count(l.clicks_lost)} clicks lost`,
    ),
    '',
    ...(unhealthy > links.length ? [`${count(unhealthy)} of your links are not ok in all; your links page lists them by state.`] : []),
    `Replace or update these links: ${base(deps.config.portalUrl)}/dashboard`,
    '',
    'You get this mail at most once a day.',
    '',
  ];
  return { subject: `${count(lost)} clicks lost on links of ${name} that cannot earn`, text: lines.join('\n') };
}

/** Sums of the week: clicks, sales (pending and approved), commission per currency, the top links by clicks. */
export async function weeklyNumbers(deps: Pick<NotificationsDeps, 'data'>, n: Pick<WeeklySummaryNotice, 'publisherId' | 'from' | 'to'>) {
  const facts = await readFacts(deps, { publisherId: n.publisherId, from: n.from, to: n.to });
  let clicks = 0;
  let sales = 0;
  const commission = new Map<string, string[]>();
  for (const f of facts) {
    clicks += f.clicks;
    if (f.conversion && f.conversion.status !== 'declined') {
      sales += f.conversion.n;
      commission.set(f.conversion.currency, [...(commission.get(f.conversion.currency) ?? []), f.conversion.commission]);
    }
  }
  const perLink = new Map<string, { clicks: number; sales: number }>();
  for (const f of await readFacts(deps, { publisherId: n.publisherId, from: n.from, to: n.to, byLink: true })) {
    if (!f.link_id) continue;
    const l = perLink.get(f.link_id) ?? { clicks: 0, sales: 0 };
    l.clicks += f.clicks;
    if (f.conversion && f.conversion.status !== 'declined') l.sales += f.conversion.n;
    perLink.set(f.link_id, l);
  }
  const top = [...perLink]
    .filter(([, l]) => l.clicks > 0 || l.sales > 0)
    .sort(([a, x], [b, y]) => y.clicks - x.clicks || y.sales - x.sales || (a < b ? -1 : 1))
    .slice(0, 5);
  const rows = await deps.data.links.byCodes(top.map(([code]) => code));
  return {
    clicks,
    sales,
    commission: [...commission]
      .map(([currency, amounts]) => ({ currency, amount: sumDecimals(amounts) }))
      .filter((c) => c.amount !== '0')
      .sort((a, b) => (a.currency < b.currency ? -1 : 1)),
    topLinks: top.map(([code, l]) => ({ code, ...l, landing_url: rows.get(code)?.landing_url ?? null, subid: rows.get(code)?.subid || null })),
  };
}

/** Exact sum of decimal strings (scaled integers). */
export function sumDecimals(amounts: string[]): string {
  const scale = Math.max(0, ...amounts.map((a) => (a.split('.')[1] ?? '').length));
  let total = 0n;
  for (const a of amounts) {
    const neg = a.startsWith('-');
    const [i, f = ''] = (neg ? a.slice(1) : a).split('.');
    const v = BigInt(`${i}${f.padEnd(scale, '0')}`);
    total += neg ? -v : v;
  }
  const neg = total < 0n;
  const digits = (neg ? -total : total).toString().padStart(scale + 1, '0');
  const out = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return total === 0n ? '0' : `${neg ? '-' : ''}${out}`;
}

async function weeklyMail(deps: NotificationsDeps, n: WeeklySummaryNotice, name: string, zone: string): Promise<Composed> {
  const w = await weeklyNumbers(deps, n);
  let cal;
  try {
    cal = zoneCalendar(zone);
  } catch {
    cal = zoneCalendar('UTC');
  }
  const first = addDays(n.week, -7);
  const last = addDays(n.week, -1);
  const day = (d: string) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(`${d}T00:00:00Z`));
  const lines = [
    `${name}, ${day(first)} to ${day(last)} (${cal.name}):`,
    '',
    `Clicks: ${count(w.clicks)}`,
    `Sales: ${count(w.sales)}`,
    `Commission: ${w.commission.length ? w.commission.map((c) => money(c.amount, c.currency)).join(', ') : 'none'}`,
    '',
    w.topLinks.length ? 'Top links:' : 'No clicks on your tracked links this week.',
    ...w.topLinks.map(
      (l, i) =>
        `${i + 1}. ${l.landing_url ? toDisplayText(l.landing_url).slice(0, 120) : l.code}${l.subid ? ` (sub-ID ${toDisplayText(l.subid).slice(0, 40)})` : ''}: ${count(l.clicks)} clicks, ${count(l.sales)} sales`,
    ),
    '',
    `Your dashboard: ${base(deps.config.portalUrl)}/dashboard`,
    '',
  ];
  return { subject: `Your week on ${name}: ${count(w.clicks)} clicks, ${count(w.sales)} sales`, text: lines.join('\n') };
}

/** The mail of one notice for one account (without its unsubscribe footer). */
export async function composeNotice(
  deps: NotificationsDeps,
  notice: Notice,
  account: { name?: string | null; timezone?: string | null; _id: string },
): Promise<Composed> {
  const name = toDisplayText(account.name ?? account._id);
  switch (notice.kind) {
    case 'sale_reversed_after_payout':
      return reversalMail(notice, name, deps.config.portalUrl);
    case 'inquiry_decided':
      return inquiryMail(deps, notice, name);
    case 'postback_failing':
      return postbackFailingMail(name, deps.config.portalUrl);
    case 'links_unhealthy':
      return linksUnhealthyMail(deps, notice.publisherId, name);
    case 'weekly_summary':
      return weeklyMail(deps, notice, name, notice.zone ?? account.timezone ?? 'UTC');
    default: {
      // The payouts lib's notices (paid, failed, method or tax details changed): its words. The job
      // carries no bytes: a paid payout's statement is loaded now, by reference, and attached.
      const n = { ...notice } as PayoutNotice;
      if (n.kind === 'payout_paid') {
        const statement = await statementOf(deps, n.publisherId, n.payoutId).catch(() => null);
        if (statement)
          n.attachments = [{ filename: statement.filename, contentType: 'application/pdf', content: statement.pdf.toString('base64'), encoding: 'base64' }];
      }
      return payoutNoticeMail(n, deps.config.portalUrl)(name);
    }
  }
}

/** The links a notification mail carries: the page that turns the kind off (a button, POST), and the one-click URL for mail clients. */
export function unsubscribeLinks(deps: Pick<NotificationsDeps, 'config'>, userId: string, kind: NotificationKind) {
  const t = encodeURIComponent(unsubscribeToken(deps.config.keys, userId, kind));
  const root = base(deps.config.portalUrl);
  return { page: `${root}/unsubscribe?t=${t}`, oneClick: `${root}/unsubscribe/one-click?t=${t}` };
}

/** The footer and headers that make a mail of `kind` one its person can stop without signing in. */
export function withUnsubscribe(deps: Pick<NotificationsDeps, 'config'>, m: Composed, userId: string, kind: NotificationKind): Composed {
  const links = unsubscribeLinks(deps, userId, kind);
  return {
    ...m,
    text:
      `${m.text}\n--\nYou get this mail because "${KIND_LABELS[kind].label}" is on in your notification settings.\n` +
      `Stop these mails: ${links.page}\nAll your settings: ${base(deps.config.portalUrl)}/settings/notifications\n`,
    headers: {
      ...m.headers,
      'List-Unsubscribe': `<${links.oneClick}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
