/**
 * A compiled matcher for the common filter shapes (top-level fields compared with literals:
 * equality, $ne, $in, $nin, $gt/$gte/$lt/$lte, $regex, $exists; $and and $or of those), with the
 * same predicates as the mingo context (so the same MongoDB semantics), minus mingo's generic
 * path resolution. A field holding an array of scalars is matched by its elements, as MongoDB
 * does; one holding documents or arrays answers "undecided" and goes through mingo, as does any
 * filter with another shape.
 */
import { BSONRegExp } from './bson';
import { isPlainObject } from './documents';
import { equalsTo, inList, ordered, type Pred } from './mingo-context';

type Doc = Record<string, unknown>;
/** true / false, or undefined when mingo must decide. */
export type FastMatch = (doc: Doc) => boolean | undefined;

const ORDERED: Record<string, (c: number) => boolean> = { $gt: (c) => c > 0, $gte: (c) => c >= 0, $lt: (c) => c < 0, $lte: (c) => c <= 0 };

function isLiteral(v: unknown): boolean {
  return !Array.isArray(v) && !isPlainObject(v) && !(v instanceof RegExp) && !(v instanceof BSONRegExp);
}

function regexOf(pattern: unknown, options: unknown): RegExp | undefined {
  if (options !== undefined && typeof options !== 'string') return undefined;
  const flags = (options ?? '').replace(/[^imsx]/g, '');
  if (flags.includes('x')) return undefined;
  if (typeof pattern === 'string') return new RegExp(pattern, flags);
  if (pattern instanceof RegExp && !options) return pattern;
  return undefined;
}

/**
 * One condition on a field: `test` of its value (a scalar); on an array of scalars, MongoDB's
 * rule: a condition holds when some element passes `test` (none, when `negate`: $ne, $nin), and
 * `whole` conditions ($exists) look at the field itself.
 */
interface FieldPred {
  test: Pred;
  negate?: boolean;
  whole?: boolean;
}

/** The conditions on one field, or undefined when one is not supported. */
function fieldPredicates(cond: unknown): FieldPred[] | undefined {
  if (cond instanceof RegExp) return [{ test: (v) => typeof v === 'string' && cond.test(v) }];
  if (isLiteral(cond)) return [{ test: equalsTo(cond) }];
  if (!isPlainObject(cond)) return undefined;
  const keys = Object.keys(cond);
  if (!keys.length || !keys.every((k) => k.startsWith('$'))) return undefined;
  const preds: FieldPred[] = [];
  for (const [op, operand] of Object.entries(cond)) {
    if (op === '$options') {
      if (!('$regex' in cond)) return undefined;
      continue;
    }
    if (op === '$eq' || op === '$ne') {
      if (!isLiteral(operand)) return undefined;
      preds.push({ test: equalsTo(operand), negate: op === '$ne' });
    } else if (op === '$in' || op === '$nin') {
      if (!Array.isArray(operand) || !operand.every((x) => isLiteral(x) || x instanceof RegExp)) return undefined;
      preds.push({ test: inList(operand), negate: op === '$nin' });
    } else if (op in ORDERED) {
      if (!isLiteral(operand)) return undefined;
      preds.push({ test: ordered(ORDERED[op])(operand) });
    } else if (op === '$regex') {
      const re = regexOf(operand, cond.$options);
      if (!re) return undefined;
      preds.push({ test: (v) => typeof v === 'string' && re.test(v) });
    } else if (op === '$exists') {
      const want = !!operand;
      preds.push({ test: (v) => (v !== undefined) === want, whole: true });
    } else {
      return undefined;
    }
  }
  return preds;
}

export function compileFastMatch(filter: Doc): FastMatch | undefined {
  const parts: FastMatch[] = [];
  for (const [key, cond] of Object.entries(filter)) {
    if (key === '$and' || key === '$or') {
      if (!Array.isArray(cond) || !cond.length || !cond.every(isPlainObject)) return undefined;
      const subs = cond.map((c) => compileFastMatch(c as Doc));
      if (subs.some((m) => !m)) return undefined;
      parts.push(key === '$and' ? all(subs as FastMatch[]) : any(subs as FastMatch[]));
      continue;
    }
    if (key.startsWith('$') || key.includes('.')) return undefined;
    const preds = fieldPredicates(cond);
    if (!preds) return undefined;
    parts.push((doc) => {
      const v = doc[key];
      if (Array.isArray(v)) {
        // An array of scalars (the common case: ids pushed as guards): each condition by some element.
        if (!v.every(isLiteral)) return undefined;
        for (const p of preds) if (!(p.whole ? p.test(v) : v.some(p.test) !== !!p.negate)) return false;
        return true;
      }
      for (const p of preds) if (p.test(v) === !!p.negate) return false;
      return true;
    });
  }
  return all(parts);
}

function all(parts: FastMatch[]): FastMatch {
  return (doc) => {
    let undecided = false;
    for (const p of parts) {
      const r = p(doc);
      if (r === false) return false;
      if (r === undefined) undecided = true;
    }
    return undecided ? undefined : true;
  };
}

function any(parts: FastMatch[]): FastMatch {
  return (doc) => {
    let undecided = false;
    for (const p of parts) {
      const r = p(doc);
      if (r === true) return true;
      if (r === undefined) undecided = true;
    }
    return undecided ? undefined : false;
  };
}
