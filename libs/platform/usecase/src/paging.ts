/**
 * Paging of lists: 1-based pages and, beside them, opaque cursors (DESIGN.md "Scale", "Cursors
 * beside pages").
 *
 * A list sorts on an index whose keys end with `_id` (`sort`, e.g. `occurred_at` descending then
 * `_id`), so a position in it is the last row's sort values. `next_cursor` carries that position,
 * the page number it starts and a digest of the list, the account and the filters (every input
 * member but `page`, `page_size` and `cursor`), sealed with an HMAC of the platform's secret key. A
 * request with `cursor` reads from just after that position (`page` is ignored; `page_size` may
 * change): its cost is the page, however deep. A request with only `page` skips the rows before
 * it, up to MAX_SKIP rows; deeper answers 400 `page_too_deep`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError, errors } from '@cw/errors';

export interface PageEnvelope<T> {
  data: T[];
  page: number;
  page_size: number;
  has_more: boolean;
  next_page: number | null;
}

/** The envelope of a list read in index order: also `next_cursor`. */
export interface CursorPage<T> extends PageEnvelope<T> {
  next_cursor: string | null;
}

export const PAGE_INPUT = { type: 'integer', minimum: 1, maximum: 100000, default: 1 } as const;

/** The paging members of a list read in index order: `page` (at most MAX_SKIP rows deep) and `cursor`. */
export const CURSOR_PAGING = {
  page: {
    ...PAGE_INPUT,
    description: 'Page number (1-based). A page that would skip more than 10,000 items answers 400 `page_too_deep`: follow `next_cursor` instead.',
  },
  cursor: {
    type: 'string',
    minLength: 1,
    maxLength: 1024,
    description:
      '`next_cursor` from the previous page of this list, with the same filters: the page after it, however deep (`page` is then ignored). A cursor from another list, account or filter answers 400.',
  },
} as const;

export const pageSizeInput = <Max extends number>(max: Max) => ({ type: 'integer', minimum: 1, maximum: max, default: 50 }) as const;

/** The most rows a page number may skip; deeper pages are read with a cursor. */
export const MAX_SKIP = 10_000;

/** A list's order: fields and directions, ending with `_id` (an index has the same keys). */
export type ListSort = ReadonlyArray<readonly [field: string, direction: 1 | -1]>;

export interface PageInput {
  page: number;
  page_size: number;
  cursor?: string;
}

/** What identifies a list for its cursors: its name, the account reading it and the key that seals them. */
export interface ListScope {
  list: string;
  account: string | number;
  secret: Buffer;
}

/** Where one page starts: rows to skip, or the filter of the rows after a cursor's position. */
export interface PageWindow {
  page: number;
  skip: number;
  /** The query's sort, as MongoDB takes it. */
  sort: Record<string, 1 | -1>;
  /** Narrows a list's filter to the rows after the cursor (identity without one). */
  filter(base: Record<string, unknown>): Record<string, unknown>;
  /** The cursor's position: the last row's sort values (undefined without a cursor). */
  after?: ReadonlyArray<string | number | Date>;
  /** The envelope of `rows` (page_size + 1 read), `map` presenting the page's rows. */
  envelope<R, V>(rows: R[], map: (rows: R[]) => V[] | Promise<V[]>): Promise<CursorPage<V>>;
}

const VERSION = 'c1';
const MAC_BYTES = 16;
const macKeys = new WeakMap<Buffer, Buffer>();
function macKey(secret: Buffer): Buffer {
  let key = macKeys.get(secret);
  if (!key) macKeys.set(secret, (key = createHmac('sha256', secret).update('list-cursor/v1').digest()));
  return key;
}

/** The list, account and filters a cursor belongs to (every input member but the paging ones). */
function scopeDigest(scope: ListScope, input: Record<string, unknown>): string {
  const filters = Object.keys(input)
    .filter((k) => k !== 'page' && k !== 'page_size' && k !== 'cursor' && input[k] !== undefined)
    .sort()
    .map((k) => [k, input[k]]);
  return createHash('sha256')
    .update(JSON.stringify([scope.list, String(scope.account), filters]))
    .digest('base64url')
    .slice(0, 16);
}

type Key = string | number | Date;
const encodeKey = (v: unknown): string | number | { d: number } => {
  if (v instanceof Date) return { d: v.getTime() };
  if (typeof v === 'string' || typeof v === 'number') return v;
  throw new Error(`list cursor: a sort value of type ${typeof v} cannot be encoded`);
};
const decodeKey = (v: unknown): Key | undefined => {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
  if (v && typeof v === 'object' && typeof (v as { d: unknown }).d === 'number') return new Date((v as { d: number }).d);
  return undefined;
};

const badCursor = (detail: string) => errors.invalidParameter('cursor', detail);

function seal(scope: ListScope, payload: { s: string; p: number; k: unknown[] }): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  const mac = createHmac('sha256', macKey(scope.secret)).update(body).digest().subarray(0, MAC_BYTES).toString('base64url');
  return `${VERSION}.${body}.${mac}`;
}

function open(scope: ListScope, cursor: string, digest: string, width: number): { page: number; keys: Key[] } {
  const [version, body, mac] = cursor.split('.');
  if (version !== VERSION || !body || !mac || cursor.split('.').length !== 3) throw badCursor('not a cursor of this list (pass next_cursor as given)');
  const want = createHmac('sha256', macKey(scope.secret)).update(body).digest().subarray(0, MAC_BYTES);
  const got = Buffer.from(mac, 'base64url');
  if (got.length !== want.length || !timingSafeEqual(got, want)) throw badCursor('not a cursor of this list (pass next_cursor as given)');
  let payload: { s?: unknown; p?: unknown; k?: unknown };
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
  } catch {
    throw badCursor('not a cursor of this list (pass next_cursor as given)');
  }
  if (payload.s !== digest) throw badCursor('this cursor was returned for another list, account or filter: repeat the filters of the request that returned it');
  const keys = Array.isArray(payload.k) ? payload.k.map(decodeKey) : [];
  if (typeof payload.p !== 'number' || keys.length !== width || keys.some((k) => k === undefined))
    throw badCursor('not a cursor of this list (pass next_cursor as given)');
  return { page: payload.p, keys: keys as Key[] };
}

/** `{f: {op: v}}` for the field's direction: strictly after (`$gt`/`$lt`) or from (`$gte`/`$lte`). */
const beyond = (direction: 1 | -1, strict: boolean, v: Key) => ({ [direction === 1 ? (strict ? '$gt' : '$gte') : strict ? '$lt' : '$lte']: v });

/**
 * The rows after position `keys` in `sort`: a range on the first field (so the index's bounds
 * start at the position) and, when there are more fields, which rows at the position's first value
 * still follow it.
 */
function after(sort: ListSort, keys: Key[]): Record<string, unknown> {
  // A sort has at least one field, and a cursor one key per field (checked when it was opened).
  const key = (i: number) => keys[i] as Key;
  const [first, dir] = sort[0]!;
  if (sort.length === 1) return { [first]: beyond(dir, true, key(0)) };
  const branches = sort.map(([field, d], i) => ({ ...Object.fromEntries(sort.slice(0, i).map(([f], j) => [f, key(j)])), [field]: beyond(d, true, key(i)) }));
  return { [first]: beyond(dir, false, key(0)), $or: branches };
}

const isOperators = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date) && Object.keys(v).length > 0 && Object.keys(v).every((k) => k.startsWith('$'));

/** `base` and `extra` both: members merged where they do not overlap (operators on one field merge), else `$and`. */
function both(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    if (!(k in out)) out[k] = v;
    else if (isOperators(out[k]) && isOperators(v) && Object.keys(v).every((op) => !(op in (out[k] as object)))) out[k] = { ...(out[k] as object), ...v };
    else return { $and: [base, extra] };
  }
  return out;
}

/**
 * Where the page `input` asks for starts, in list `scope` sorted by `sort`: after `input.cursor`,
 * or `page`'s rows skipped. A cursor that is not this list's (tampered, another account or
 * filter) answers 400 `invalid_parameter`; a page past MAX_SKIP rows 400 `page_too_deep`.
 */
export function pageWindow(scope: ListScope, sort: ListSort, input: PageInput & Record<string, unknown>): PageWindow {
  if (sort[sort.length - 1]?.[0] !== '_id') throw new Error(`list ${scope.list}: its sort must end with _id`);
  const digest = scopeDigest(scope, input);
  let page = input.page;
  let skip = (input.page - 1) * input.page_size;
  let narrow = (base: Record<string, unknown>) => base;
  let position: Key[] | undefined;
  if (input.cursor !== undefined) {
    const at = open(scope, input.cursor, digest, sort.length);
    position = at.keys;
    page = at.page;
    skip = 0;
    const extra = after(sort, at.keys);
    narrow = (base) => both(base, extra);
  } else if (skip > MAX_SKIP) {
    throw new ApiError({
      code: 'page_too_deep',
      detail: `Page ${input.page} of ${input.page_size} would skip ${skip} items, more than ${MAX_SKIP}: follow next_cursor from the previous page instead.`,
      errors: [{ param: 'page', detail: `more than ${MAX_SKIP} items before it` }],
    });
  }
  return {
    page,
    skip,
    sort: Object.fromEntries(sort),
    filter: narrow,
    after: position,
    async envelope(rows, map) {
      const more = rows.length > input.page_size;
      const shown = rows.slice(0, input.page_size);
      const last = shown[shown.length - 1] as Record<string, unknown> | undefined;
      const next = more && last ? seal(scope, { s: digest, p: page + 1, k: sort.map(([f]) => encodeKey(last[f])) }) : null;
      return { data: await map(shown), page, page_size: input.page_size, has_more: more, next_page: more ? page + 1 : null, next_cursor: next };
    },
  };
}

/** Rows to skip for a page (lists without a cursor). */
export const skipFor = (page: number, pageSize: number) => (page - 1) * pageSize;

/**
 * The envelope of one page from page_size + 1 rows read (the extra row only says another page
 * exists, so nothing is counted), for lists paged by number only (reports' groups, small lists).
 */
export function pageOf<T>(rows: T[], input: { page: number; page_size: number }): PageEnvelope<T> {
  const more = rows.length > input.page_size;
  return { data: rows.slice(0, input.page_size), page: input.page, page_size: input.page_size, has_more: more, next_page: more ? input.page + 1 : null };
}

/**
 * The response schema of a page-based list: `{data, page, page_size, has_more, next_page}`, and
 * `next_cursor` for the lists that take `cursor` (`{cursor: true}`).
 */
export function pageEnvelopeSchema(item: Record<string, unknown>, opts: { cursor?: boolean } = {}) {
  return {
    type: 'object',
    required: ['data', 'page', 'page_size', 'has_more', 'next_page', ...(opts.cursor ? ['next_cursor'] : [])],
    properties: {
      data: { type: 'array', items: item },
      page: { type: 'integer', minimum: 1 },
      page_size: { type: 'integer', minimum: 1 },
      has_more: { type: 'boolean', description: 'True when page + 1 holds more items.' },
      next_page: { type: ['integer', 'null'], description: 'The next page number, or null on the last page.' },
      ...(opts.cursor
        ? {
            next_cursor: {
              type: ['string', 'null'],
              description: 'Pass as `cursor` (with the same filters) for the next page, however deep; null on the last page.',
            },
          }
        : {}),
    },
  } as Record<string, unknown>;
}
