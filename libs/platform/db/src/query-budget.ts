/**
 * Every read a request makes runs under the request's time budget: a query or aggregate started
 * inside `withQueryBudget(ms, fn)` (the HTTP apps wrap each request in it) gets `maxTimeMS` unless
 * it sets its own, so no request can hold the database longer than REQUEST_QUERY_TIMEOUT_MS per
 * read; over it MongoDB answers code 50, which `databaseError` turns into 503
 * `service_unavailable`. Background work (workers, jobs, the CLI) runs outside any request and
 * keeps no limit. A read that must outlive the budget (a streamed export) sets `maxTimeMS(0)`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Schema } from 'mongoose';

const budget = new AsyncLocalStorage<number>();

export function withQueryBudget<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return ms > 0 ? budget.run(ms, fn) : fn();
}

/** Gives the reads of `schema`'s models the current request's budget (registered once per schema). */
export function applyQueryBudget(schema: Schema): void {
  schema.pre(['find', 'findOne', 'countDocuments', 'estimatedDocumentCount', 'distinct'], function () {
    const ms = budget.getStore();
    if (ms !== undefined && this.getOptions().maxTimeMS === undefined) this.maxTimeMS(ms);
  });
  schema.pre('aggregate', function () {
    const ms = budget.getStore();
    if (ms !== undefined && this.options.maxTimeMS === undefined) this.option({ maxTimeMS: ms });
  });
}
