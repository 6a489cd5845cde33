/**
 * The mingo operator context the engine evaluates with: mingo's own operators, with the
 * comparison, sort and numeric-accumulator operators replaced by MongoDB-exact versions
 * (Decimal128/Long by exact value, BSON cross-type order, null matching missing fields).
 */
import { Context, evalExpr, ProcessingMode } from 'mingo/core';
import { Lazy, type Iterator } from 'mingo/lazy';
import { resolve } from 'mingo/util';
import * as accumulatorOps from 'mingo/operators/accumulator';
import * as expressionOps from 'mingo/operators/expression';
import * as pipelineOps from 'mingo/operators/pipeline';
import * as projectionOps from 'mingo/operators/projection';
import * as queryOps from 'mingo/operators/query';
import * as windowOps from 'mingo/operators/window';
import type { Options } from 'mingo/types';
import { averageValues, compareValues, keyString, multiplyValues, sumValues, typeRank } from './bson-values';

export type Pred = (value: unknown) => boolean;
type AnyObj = Record<string, unknown>;

/** The values a path selects in a document: the value itself, and the elements of arrays on the way. */
function candidates(doc: AnyObj, selector: string, depth: number): unknown[] {
  const v = resolve(doc as never, selector, { unwrapArray: true });
  if (!Array.isArray(v)) return [v];
  const out: unknown[] = [v];
  const walk = (xs: unknown[], d: number) => {
    for (const x of xs) {
      out.push(x);
      if (Array.isArray(x) && d > 0) walk(x, d - 1);
    }
  };
  walk(v, depth);
  return out;
}

function queryOp(make: (operand: unknown) => Pred, negate = false) {
  return (selector: string, operand: unknown) => {
    const depth = selector.split('.').length - 1;
    const test = make(operand);
    return (doc: AnyObj) => {
      const hit = candidates(doc, selector, depth).some(test);
      return negate ? !hit : hit;
    };
  };
}

function isRegex(v: unknown): v is RegExp {
  return v instanceof RegExp;
}

export const equalsTo = (operand: unknown): Pred => {
  const key = keyString(operand);
  return (v) => keyString(v) === key;
};

export const inList = (operand: unknown): Pred => {
  if (!Array.isArray(operand)) throw new Error('$in needs an array');
  const keys = new Set(operand.filter((x) => !isRegex(x)).map(keyString));
  const patterns = operand.filter(isRegex);
  return (v) => keys.has(keyString(v)) || (typeof v === 'string' && patterns.some((p) => p.test(v)));
};

/** MongoDB type bracketing: $gt/$lt only compare values of the same canonical type. */
export const ordered =
  (accept: (c: number) => boolean) =>
  (operand: unknown): Pred => {
    const rank = typeRank(operand);
    return (v) => {
      if (v === undefined && rank !== 2) return false;
      return typeRank(v) === rank && accept(compareValues(v, operand));
    };
  };

function sortKeyOf(doc: AnyObj, path: string, direction: number): unknown {
  const v = resolve(doc as never, path);
  if (!Array.isArray(v)) return v;
  // An array sorts by its smallest element ascending and its largest descending.
  const flat = v.flat(Infinity);
  if (flat.length === 0) return undefined;
  return flat.reduce((best, x) => (compareValues(x, best) * direction < 0 ? x : best));
}

export function sortDocuments<T extends AnyObj>(docs: T[], spec: Record<string, unknown>): T[] {
  const fields = Object.entries(spec).map(([path, dir]) => [path, Number(dir) < 0 ? -1 : 1] as const);
  const keyed = docs.map((d) => ({ d, k: fields.map(([p, dir]) => sortKeyOf(d, p, dir)) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i++) {
      const c = compareValues(a.k[i], b.k[i]);
      if (c) return c * fields[i][1];
    }
    return 0;
  });
  return keyed.map((x) => x.d);
}

/** The values an accumulator's expression takes over a group (mingo's own $push does the evaluation). */
const valuesOf = (coll: AnyObj[], expr: unknown, options: Options): unknown[] =>
  (accumulatorOps.$push as (c: AnyObj[], e: unknown, o: Options) => unknown[])(coll, expr, options);

const minMax = (sign: number) => (coll: AnyObj[], expr: unknown, options: Options) => {
  let best: unknown = null;
  for (const v of valuesOf(coll, expr, options)) {
    if (v === null || v === undefined) continue;
    if (best === null || compareValues(v, best) * sign > 0) best = v;
  }
  return best;
};

const spread = (ops: object): Record<string, unknown> => ({ ...ops });

const operators: Record<string, Record<string, unknown>> = {
  query: {
    ...spread(queryOps),
    $eq: queryOp(equalsTo),
    $ne: queryOp(equalsTo, true),
    $in: queryOp(inList),
    $nin: queryOp(inList, true),
    $gt: queryOp(ordered((c) => c > 0)),
    $gte: queryOp(ordered((c) => c >= 0)),
    $lt: queryOp(ordered((c) => c < 0)),
    $lte: queryOp(ordered((c) => c <= 0)),
  },
  pipeline: {
    ...spread(pipelineOps),
    $sort: (coll: Iterator, spec: Record<string, unknown>) => coll.transform((docs: unknown[]) => Lazy(sortDocuments(docs as AnyObj[], spec)) as never),
  },
  accumulator: {
    ...spread(accumulatorOps),
    $sum: (coll: AnyObj[], expr: unknown, options: Options) => sumValues(valuesOf(coll, expr, options)),
    $avg: (coll: AnyObj[], expr: unknown, options: Options) => averageValues(valuesOf(coll, expr, options)),
    $min: minMax(-1),
    $max: minMax(1),
  },
  expression: {
    ...spread(expressionOps),
    $add: (obj: AnyObj, expr: unknown, options: Options) => {
      const args = evalExpr(obj, expr, options) as unknown[];
      if (args.some((a) => a === null || a === undefined)) return null;
      const date = args.find((a) => a instanceof Date) as Date | undefined;
      if (date) return new Date(args.reduce<number>((t, a) => t + (a instanceof Date ? a.getTime() : Number(a)), 0));
      return sumValues(args);
    },
    $multiply: (obj: AnyObj, expr: unknown, options: Options) => {
      const args = evalExpr(obj, expr, options) as unknown[];
      if (args.some((a) => a === null || a === undefined)) return null;
      return args.reduce((acc, a) => multiplyValues(acc, a), 1);
    },
  },
  projection: spread(projectionOps),
  window: spread(windowOps),
};

export const mongoContext = Context.init(operators as never);

export function mingoOptions(extra: Partial<Options> = {}): Partial<Options> {
  return { context: mongoContext, processingMode: ProcessingMode.CLONE_OFF, useStrictMode: true, ...extra };
}
