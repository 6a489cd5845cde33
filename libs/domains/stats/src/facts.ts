/** What the stats reads are asked (StatsQuery) and what they answer (Fact): types the reader, the roll-ups and the sums share. */
import type { Bucket, Calendar } from './calendar';

export interface StatsQuery {
  publisherId: string;
  /** [from, to) in ms, multiples of a quarter hour; an absent end: the account's first (last) fact. */
  from?: number;
  to?: number;
  /**
   * Time buckets: this calendar's days (or weeks, months: `bucket`). Facts are split where a
   * bucket starts and carry the instant their bucket starts (the range's start for the first).
   * Without it the range is one bucket.
   */
  calendar?: Calendar;
  bucket?: Bucket;
  bySubid?: boolean;
  byProgram?: boolean;
  /** Per tracked link (facts that came through none are left out); `linkIds`: only these. */
  byLink?: boolean;
  linkIds?: string[];
  subid?: string;
  programId?: number;
  merchantId?: number;
  /** Read the cells even where the roll-ups would answer (the full scan the roll-ups are checked against). */
  cells?: boolean;
}

/** The sums of one group in one bucket: `at` is where the bucket (or the range) starts. */
export interface Fact {
  at: number;
  program_id: number | null;
  campaign_id: number | null;
  subid: string | null;
  /** Per link reads only. */
  link_id: string | null;
  clicks: number;
  /** Conversions: absent on a click fact. */
  conversion?: {
    currency: string;
    status: 'pending' | 'approved' | 'declined';
    source: 'v1' | 'ledger';
    paid: boolean;
    n: number;
    sale: string;
    commission: string;
  };
}
