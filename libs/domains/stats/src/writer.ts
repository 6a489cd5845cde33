/**
 * Applying increments to the stats read model exactly once, whatever crashes in the middle.
 *
 * A transaction (`stats_txns`) is stored before its increments are applied. Each cell's update
 * is guarded by the transaction id (`txns: {$ne: id}` in the filter, `$push` of the id in the
 * update), so applying it again skips the cells it already reached. Then the sources are marked
 * (conversions: the state they are now counted in), the transaction is deleted, and its id is
 * pulled from the cells (after the delete: an id left in a cell is harmless, never reused). A
 * transaction whose writer died is finished by the next pass once its lease has passed.
 *
 * Several transactions can be applied together (the worker counts fresh click batches that way):
 * each cell's update then adds their summed increments guarded by all their ids (`$nin`) and pushes
 * them all, so a cell holds every id of the group or none. A member recovered alone afterwards
 * (its group's writer died) skips the cells the group reached and adds only its own to the others:
 * still exactly once. Members are claimed before (stats_txns `owner`), so no transaction is ever
 * in two groups at a time.
 *
 * The roll-ups (one document per account, view and UTC day or month: ./rollups.ts) take the same
 * increments' totals the same way, right after the cells, guarded by the same ids.
 */
import { randomBytes } from 'node:crypto';
import { Types } from 'mongoose';
import { CELL_FORMAT, type CellInc } from './cells';
import { own, type StatsDeps } from './deps';
import { applyRollups, pullRollups } from './rollups';

type Deps = Pick<StatsDeps, 'data'>;

/** How long a writer may take to apply its transaction before a pass finishes it instead. */
export const TXN_LEASE_MS = 60_000;

export const newTxnId = () => `stx_${randomBytes(12).toString('base64url')}`;

interface StoredInc {
  id: string;
  dims: CellInc['dims'];
  counts: Record<string, number>;
  money: Record<string, string>;
}

export const storedIncs = (cells: Array<[string, CellInc]>): StoredInc[] => cells.map(([id, c]) => ({ id, dims: c.dims, counts: c.counts, money: c.money }));

/** Applies each cell's increments unless these transactions already reached it (one bulk write). */
export async function applyIncrements(deps: Deps, txnIds: string | string[], incs: StoredInc[]): Promise<void> {
  if (!incs.length) return;
  const ids = typeof txnIds === 'string' ? [txnIds] : txnIds;
  const guard = ids.length === 1 ? { $ne: ids[0] } : { $nin: ids };
  const push = ids.length === 1 ? ids[0] : { $each: ids };
  const ops = incs.map((c) => {
    const inc: Record<string, number | Types.Decimal128> = { ...c.counts };
    for (const [path, v] of Object.entries(c.money)) inc[path] = Types.Decimal128.fromString(v);
    const { publisher_id, ...rest } = c.dims;
    return {
      updateOne: {
        filter: { _id: c.id, publisher_id, txns: guard },
        update: { $inc: inc, $push: { txns: push }, $setOnInsert: { ...rest, t: new Date(rest.t), fv: CELL_FORMAT } },
        upsert: true,
      },
    };
  });
  try {
    // Through the driver: the operations are built with their stored types, and mongoose's casting
    // of thousands of cell updates per round cost more than building them.
    await own(deps).Stat.collection.bulkWrite(ops as never, { ordered: false });
  } catch (e) {
    // A cell that holds the id already: its guarded filter missed and the upsert met its _id.
    const err = e as { code?: number; writeErrors?: Array<{ code: number; err?: { code: number } }> };
    const errors = Array.isArray(err.writeErrors) ? err.writeErrors : [];
    const codeOf = (w: { code: number; err?: { code: number } }) => w.code ?? w.err?.code;
    if (!(errors.length ? errors.every((w) => codeOf(w) === 11000) : err.code === 11000)) throw e;
  }
  // Then the roll-ups of the same cells, guarded by the same ids (./rollups.ts): after the cells, so
  // a transaction whose id a cell holds has not reached the roll-ups before its cells.
  await applyRollups(deps, ids, incs);
}

/** The end of a transaction (or of a group applied together): deleted first, then its ids pulled from the cells it touched. */
export async function closeTxn(deps: Deps, txnIds: string | string[], incs: StoredInc[]): Promise<void> {
  const ids = typeof txnIds === 'string' ? [txnIds] : txnIds;
  await own(deps).StatTxn.deleteMany({ _id: { $in: ids } });
  const byPublisher = new Map<string, string[]>();
  for (const c of incs) {
    const cells = byPublisher.get(c.dims.publisher_id);
    if (cells) cells.push(c.id);
    else byPublisher.set(c.dims.publisher_id, [c.id]);
  }
  const pull = ids.length === 1 ? { $pull: { txns: ids[0] } } : { $pullAll: { txns: ids } };
  for (const [publisherId, cells] of byPublisher) await own(deps).Stat.updateMany({ publisher_id: publisherId, _id: { $in: cells } }, pull);
  await pullRollups(deps, ids, incs);
}
