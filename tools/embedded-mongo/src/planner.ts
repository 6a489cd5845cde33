/**
 * Chooses how a filter reads a collection: equality/$in on an index prefix (a top-level $or whose
 * every branch is indexable reads the union), an ordered index walk (serving a sort, optionally
 * restricted by an equality prefix and a range), a merge of several such walks when the prefix
 * holds $in lists (MongoDB's SORT_MERGE), or a full scan. The plan only narrows candidates; the
 * full filter is always applied afterwards by mingo.
 */
import { compareValues, typeRank } from './bson-values';
import { isPlainObject } from './documents';
import type { IndexStore, KeyRange } from './index-store';

interface FieldCondition {
  eq?: unknown[];
  range?: KeyRange;
}

const MAX_EQ_COMBINATIONS = 10_000;
/** Most ordered walks merged into one sorted stream. */
const MAX_MERGED_WALKS = 64;
/** An unlimited sorted read walks an index serving the sort when it reads at most this many times the entries another plan would sort. */
const UNLIMITED_WALK_FACTOR = 4;
const SMALL_CANDIDATE_SET = 2_000;

function rangeOf(ops: Record<string, unknown>): KeyRange | undefined {
  const bounds = ['$gt', '$gte', '$lt', '$lte'].filter((op) => op in ops);
  if (bounds.length === 0) return undefined;
  const rank = typeRank(ops[bounds[0]]);
  if (bounds.some((op) => typeRank(ops[op]) !== rank) || rank === 2) return undefined;
  const lower = ops.$gt ?? ops.$gte;
  const upper = ops.$lt ?? ops.$lte;
  return {
    lower,
    upper,
    test: (v) => {
      if (typeRank(v) !== rank) return false;
      if ('$gt' in ops && !(compareValues(v, ops.$gt) > 0)) return false;
      if ('$gte' in ops && !(compareValues(v, ops.$gte) >= 0)) return false;
      if ('$lt' in ops && !(compareValues(v, ops.$lt) < 0)) return false;
      if ('$lte' in ops && !(compareValues(v, ops.$lte) <= 0)) return false;
      return true;
    },
  };
}

function usableEqValue(v: unknown): boolean {
  return !(v instanceof RegExp) && !Array.isArray(v) && !(isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$')));
}

export function analyzeFilter(filter: Record<string, unknown>, out = new Map<string, FieldCondition>()): Map<string, FieldCondition> {
  for (const [field, v] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainObject(sub)) analyzeFilter(sub, out);
      continue;
    }
    if (field.startsWith('$') || out.has(field)) continue;
    if (isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'))) {
      const cond: FieldCondition = {};
      if ('$eq' in v && usableEqValue(v.$eq)) cond.eq = [v.$eq];
      else if (Array.isArray(v.$in) && v.$in.every(usableEqValue)) cond.eq = v.$in;
      const range = rangeOf(v);
      if (range) cond.range = range;
      if (cond.eq || cond.range) out.set(field, cond);
    } else if (usableEqValue(v)) {
      out.set(field, { eq: [v] });
    }
  }
  return out;
}

export type Plan =
  | { kind: 'ids'; ids: Set<string>; index: string }
  | { kind: 'walk'; index: IndexStore; reverse: boolean; prefix: unknown[]; range?: KeyRange; servesSort: boolean }
  | { kind: 'merge'; index: IndexStore; reverse: boolean; prefixes: unknown[][] }
  | { kind: 'scan' };

function combinations(lists: unknown[][]): unknown[][] {
  let out: unknown[][] = [[]];
  for (const l of lists) {
    const next: unknown[][] = [];
    for (const t of out) for (const v of l) next.push([...t, v]);
    out = next;
  }
  return out;
}

/**
 * The order an index walk yields, if it serves the requested sort after an equality prefix. A
 * sort field held by the prefix is constant within each walk (and merged walks compare it), so
 * only the others must follow the index.
 */
function servesSort(index: IndexStore, prefixLen: number, sort: Array<[string, number]>): boolean | undefined {
  const rest = index.fields.slice(prefixLen);
  const fixed = new Set(index.fields.slice(0, prefixLen).map(([f]) => f));
  if (sort.length === 0) return undefined;
  sort = sort.filter(([f]) => !fixed.has(f));
  if (sort.length === 0) return false;
  if (sort.length > rest.length) return undefined;
  let sameAll = true;
  let reversedAll = true;
  for (let i = 0; i < sort.length; i++) {
    if (rest[i][0] !== sort[i][0]) return undefined;
    sameAll &&= rest[i][1] === sort[i][1];
    reversedAll &&= rest[i][1] === -sort[i][1];
  }
  if (sameAll) return false;
  if (reversedAll) return true;
  return undefined;
}

/**
 * Whether every document the filter matches is in the index: always for a complete one; for a
 * partial one when the filter implies its expression (equality to the same value, or `$exists:
 * true` implied by equality to non-null values or a range), as MongoDB decides; for a sparse one
 * when the filter holds one of its fields to a non-null value or a range.
 */
function holdsEveryMatch(index: IndexStore, conds: Map<string, FieldCondition>): boolean {
  if (index.complete) return true;
  const present = (c: FieldCondition | undefined) => !!c && (!!c.range || (!!c.eq && c.eq.every((v) => v !== null && v !== undefined)));
  if (index.spec.sparse && !index.fields.some(([f]) => present(conds.get(f)))) return false;
  const partial = index.spec.partialFilterExpression;
  if (!partial) return true;
  return Object.entries(partial).every(([field, want]) => {
    const c = conds.get(field);
    if (isPlainObject(want) && Object.keys(want).some((k) => k.startsWith('$'))) {
      const ops = Object.keys(want);
      if (ops.length === 1 && ops[0] === '$exists' && want.$exists === true) return present(c);
      if (ops.length === 1 && ops[0] === '$eq') want = want.$eq;
      else return false;
    }
    if (field.startsWith('$') || !usableEqValue(want)) return false;
    return !!c?.eq && c.eq.length === 1 && typeRank(c.eq[0]) === typeRank(want) && compareValues(c.eq[0], want) === 0;
  });
}

export function choosePlan(indexes: IndexStore[], filter: Record<string, unknown>, sort: Array<[string, number]>, limit: number): Plan {
  const conds = analyzeFilter(filter);
  const usable = indexes.filter((i) => holdsEveryMatch(i, conds));

  // Candidates are counted, not materialized: only the chosen plan builds its id set.
  let best = smallestCandidate(usable, conds);
  const union = unionOfBranches(usable, filter);
  if (union && (!best || union.size < best.size)) best = union;

  // An equality prefix followed by a range on the next field (publisher + date) reads only the
  // entries in range: counted by binary search, it wins when it is the smaller candidate set.
  let ranged: { index: IndexStore; prefix: unknown[]; range: KeyRange; size: number } | undefined;
  for (const index of usable) {
    const prefix = equalityPrefix(index, conds, 1).map((l) => l[0]);
    const range = conds.get(index.fields[prefix.length]?.[0] ?? '')?.range;
    if (!range) continue;
    const size = index.rangeCount(prefix, range);
    if (!ranged || size < ranged.size) ranged = { index, prefix, range, size };
  }

  // An ordered walk that serves the sort never sorts in memory and reads only as far as its
  // consumer asks (a limit, or a cursor's batches). The walk with the longest equality prefix
  // wins; a prefix of $in lists becomes a merge of one walk per combination.
  if (sort.length) {
    let chosen: { index: IndexStore; p: number; reverse: boolean; lists: unknown[][]; combos: number } | undefined;
    for (const index of usable) {
      const lists = equalityPrefix(index, conds, MAX_MERGED_WALKS);
      for (let p = lists.length; p >= 0; p--) {
        const reverse = servesSort(index, p, sort);
        if (reverse === undefined) continue;
        const n = lists.slice(0, p).reduce((a, l) => a * l.length, 1);
        if (!chosen || p > chosen.p || (p === chosen.p && n < chosen.combos)) chosen = { index, p, reverse, lists: lists.slice(0, p), combos: n };
        break;
      }
    }
    if (chosen) {
      const { index, p, reverse, lists } = chosen;
      const range = chosen.combos === 1 ? conds.get(index.fields[p]?.[0] ?? '')?.range : undefined;
      // Entries the walk (or the merged walks) reads at most.
      const walkSize =
        chosen.combos === 1
          ? index.rangeCount(
              lists.map((l) => l[0]),
              range,
            )
          : combinations(lists).reduce((n, prefix) => n + index.rangeCount(prefix), 0);
      // With a limit it stops early, so it wins unless equality already narrowed the candidates to
      // a few (relative to the limit) or it is as narrow as they are. Without one it reads its whole
      // range: it wins when that is within a few times what the other plans read before sorting.
      const other = Math.min(best?.size ?? Infinity, ranged?.size ?? Infinity);
      const wins =
        limit > 0
          ? !best || best.size > Math.min(SMALL_CANDIDATE_SET, 8 * limit) || walkSize <= best.size
          : walkSize <= UNLIMITED_WALK_FACTOR * other || other === Infinity;
      if (wins) {
        if (chosen.combos === 1) return { kind: 'walk', index, reverse, prefix: lists.map((l) => l[0]), range, servesSort: true };
        return { kind: 'merge', index, reverse, prefixes: combinations(lists) };
      }
    }
  }

  if (ranged && (!best || ranged.size < best.size))
    return { kind: 'walk', index: ranged.index, reverse: false, prefix: ranged.prefix, range: ranged.range, servesSort: false };
  if (best) return { kind: 'ids', ids: best.ids(), index: best.index };
  return { kind: 'scan' };
}

interface EqCandidate {
  index: string;
  size: number;
  ids(): Set<string>;
}

/** The value lists of the index's leading fields held by equality/$in, while their combinations stay within max. */
function equalityPrefix(index: IndexStore, conds: Map<string, FieldCondition>, max: number): unknown[][] {
  const lists: unknown[][] = [];
  let count = 1;
  for (const [field] of index.fields) {
    const eq = conds.get(field)?.eq;
    if (!eq || count * eq.length > max) break;
    lists.push(eq);
    count *= eq.length;
  }
  return lists;
}

function equalityCandidate(index: IndexStore, conds: Map<string, FieldCondition>): EqCandidate | undefined {
  const lists = equalityPrefix(index, conds, MAX_EQ_COMBINATIONS);
  if (lists.length === 0) return undefined;
  const tuples = combinations(lists);
  return { index: index.name, size: index.count(tuples, lists.length), ids: () => index.lookup(tuples, lists.length) };
}

/** The index whose equality prefix narrows to the fewest entries. */
function smallestCandidate(indexes: IndexStore[], conds: Map<string, FieldCondition>): EqCandidate | undefined {
  let best: EqCandidate | undefined;
  for (const index of indexes) {
    const candidate = equalityCandidate(index, conds);
    if (candidate && (!best || candidate.size < best.size)) best = candidate;
  }
  return best;
}

/** A top-level $or whose every branch narrows by equality reads the union of the branches. */
function unionOfBranches(indexes: IndexStore[], filter: Record<string, unknown>): EqCandidate | undefined {
  const branches = filter.$or;
  if (!Array.isArray(branches) || branches.length === 0 || !branches.every(isPlainObject)) return undefined;
  const parts: EqCandidate[] = [];
  for (const branch of branches) {
    const part = smallestCandidate(indexes, analyzeFilter(branch as Record<string, unknown>));
    if (!part) return undefined;
    parts.push(part);
  }
  return {
    index: [...new Set(parts.map((p) => p.index))].join('|'),
    size: parts.reduce((a, p) => a + p.size, 0),
    ids: () => {
      const ids = new Set<string>();
      for (const p of parts) for (const id of p.ids()) ids.add(id);
      return ids;
    },
  };
}
