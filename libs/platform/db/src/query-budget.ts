/**
 * Every read a request makes runs under the request's time budget: the connection a service's
 * requests read through is given one (`budgetReads(connection, ms)`: `runHttpService` and the
 * one-process platform give theirs REQUEST_QUERY_TIMEOUT_MS), and a query or aggregate through its
 * models gets `maxTimeMS` unless it sets its own, so no request can hold the database longer than
 * that per read; over it MongoDB answers code 50, which `databaseError` turns into 503
 * `service_unavailable`. Background work (the worker, jobs, the CLI) reads through a connection
 * without one and keeps no limit. A read that must outlive the budget (a streamed export) sets
 * `maxTimeMS(0)`.
 *
 * Why per connection and not per request (an AsyncLocalStorage around each request): on Node 20
 * a context store puts a hook on every promise of the process, a visible share of a product
 * search (issue 32, bench/README.md); a service's request connection serves requests only, so the
 * budget is the same.
 */
import type { Connection, Schema } from 'mongoose';

const budgets = new WeakMap<Connection, number>();

/** Gives every read through `connection`'s models `maxTimeMS: ms` unless the read sets its own. */
export function budgetReads(connection: Connection, ms: number): void {
  if (ms > 0) budgets.set(connection, ms);
}

/** Gives the reads of `schema`'s models their connection's budget (registered once per schema). */
export function applyQueryBudget(schema: Schema): void {
  schema.pre(['find', 'findOne', 'countDocuments', 'estimatedDocumentCount', 'distinct'], function () {
    const ms = budgets.get(this.model.db);
    if (ms !== undefined && this.getOptions().maxTimeMS === undefined) this.maxTimeMS(ms);
  });
  schema.pre('aggregate', function () {
    const ms = budgets.get(this.model().db);
    if (ms !== undefined && this.options.maxTimeMS === undefined) this.option({ maxTimeMS: ms });
  });
}
