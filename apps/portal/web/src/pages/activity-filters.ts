/**
 * The activity lists' filters as the URL holds them: only values the API takes are read back, so a
 * hand-edited or stale link shows the list unfiltered on that member instead of an error.
 */
import {
  CONVERSION_CHANNELS,
  CONVERSION_STATUSES,
  type ClickFilters,
  type ConversionChannel,
  type ConversionFilters,
  type ConversionStatus,
} from '../api/activity';

const SUBID = /^[A-Za-z0-9._~-]{1,100}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const CAMPAIGN = /^[1-9][0-9]{0,9}$/;
const LINK = /^[A-Za-z0-9]{1,64}$/;

/** The conversions' filters shown, read from the URL (only values the API takes). */
export function conversionFiltersOf(params: URLSearchParams): ConversionFilters {
  const f: ConversionFilters = {};
  const from = params.get('date_from');
  const to = params.get('date_to');
  const status = params.get('status');
  const subid = params.get('subid');
  const channel = params.get('channel');
  if (from && DAY.test(from)) f.date_from = from;
  if (to && DAY.test(to)) f.date_to = to;
  if (status && (CONVERSION_STATUSES as string[]).includes(status)) f.status = status as ConversionStatus;
  if (subid && SUBID.test(subid)) f.subid = subid;
  if (channel && (CONVERSION_CHANNELS as string[]).includes(channel)) f.channel = channel as ConversionChannel;
  return f;
}

/** The clicks' filters shown, read from the URL (only values the API takes). */
export function clickFiltersOf(params: URLSearchParams): ClickFilters {
  const f: ClickFilters = {};
  const subid = params.get('sub_id');
  const campaign = params.get('campaign_id');
  const link = params.get('deeplink_id');
  if (subid && SUBID.test(subid)) f.sub_id = subid;
  if (campaign && CAMPAIGN.test(campaign)) f.campaign_id = campaign;
  if (link && LINK.test(link)) f.deeplink_id = link;
  if (params.get('include_bots') === 'true') f.include_bots = true;
  return f;
}

export type ConversionFilterProblems = { to?: string; subid?: string };

/** What the conversions' filter form says before it changes the URL (empty: nothing). */
export function conversionFilterProblems(from: string, to: string, subid: string): ConversionFilterProblems {
  const found: ConversionFilterProblems = {};
  if (from && to && from > to) found.to = 'The end date is before the start date.';
  if (subid.trim() && !SUBID.test(subid.trim())) found.subid = 'Letters, digits and . _ ~ - only, up to 100.';
  return found;
}

export type ClickFilterProblems = Partial<Record<'subid' | 'campaign' | 'link', string>>;

/** What the clicks' filter form says before it changes the URL (empty: nothing). */
export function clickFilterProblems(subid: string, campaign: string, link: string): ClickFilterProblems {
  const found: ClickFilterProblems = {};
  if (subid.trim() && !SUBID.test(subid.trim())) found.subid = 'Letters, digits and . _ ~ - only, up to 100.';
  if (campaign.trim() && !CAMPAIGN.test(campaign.trim())) found.campaign = 'A merchant id is a whole number.';
  if (link.trim() && !LINK.test(link.trim())) found.link = 'A link id is letters and digits, up to 64.';
  return found;
}
