/**
 * `explain` of find and aggregate in MongoDB's shape, so a plan test reads the same fields on the
 * engine and on MongoDB: `queryPlanner.winningPlan` as a stage tree (COLLSCAN, IXSCAN with its
 * index name and key pattern under FETCH, SORT when documents are sorted in memory, SORT_MERGE of
 * several index scans, LIMIT/SKIP), and with `executionStats` (the default verbosity here, as
 * drivers ask) `nReturned`, `totalKeysExamined`, `totalDocsExamined`, `executionTimeMillis`. An
 * aggregate's leading `$match` (and the sort/skip/limit the engine pushes down) is the `$cursor`
 * stage, the rest listed after it.
 */
import type { Document } from './bson';
import type { ReadStats } from './collection';
import { MongoServerError } from './errors';

interface FindShape {
  ns: string;
  filter: Document;
  sort?: Document;
  skip?: number;
  limit?: number;
}

function planTree(stats: ReadStats, shape: FindShape): Document {
  const plan = stats.plan;
  const filter = Object.keys(shape.filter).length ? { filter: shape.filter } : {};
  let tree: Document;
  if (!plan || plan.kind === 'scan') tree = { stage: 'COLLSCAN', ...filter, direction: 'forward' };
  else if (plan.kind === 'merge') {
    const scans = plan.prefixes.map(() => ({
      stage: 'IXSCAN',
      keyPattern: plan.index.spec.key,
      indexName: plan.index.name,
      direction: plan.reverse ? 'backward' : 'forward',
    }));
    tree = { stage: 'FETCH', ...filter, inputStage: { stage: 'SORT_MERGE', sortPattern: shape.sort, inputStages: scans } };
  } else {
    const index = plan.kind === 'walk' ? plan.index.spec : undefined;
    const name = plan.kind === 'walk' ? plan.index.name : plan.index;
    const scan: Document = { stage: 'IXSCAN', indexName: name, direction: plan.kind === 'walk' && plan.reverse ? 'backward' : 'forward' };
    if (index) scan.keyPattern = index.key;
    tree = { stage: 'FETCH', ...filter, inputStage: scan };
  }
  if (stats.sortedInMemory)
    tree = { stage: 'SORT', sortPattern: shape.sort, ...(shape.limit ? { limitAmount: (shape.skip ?? 0) + shape.limit } : {}), inputStage: tree };
  else if (shape.limit) tree = { stage: 'LIMIT', limitAmount: (shape.skip ?? 0) + shape.limit, inputStage: tree };
  if (shape.skip) tree = { stage: 'SKIP', skipAmount: shape.skip, inputStage: tree };
  return tree;
}

/** The explain reply of one read (find, or the $cursor of an aggregate). */
export function explainRead(stats: ReadStats, shape: FindShape, ms: number, verbosity: string): Document {
  const winningPlan = planTree(stats, shape);
  const out: Document = { queryPlanner: { namespace: shape.ns, parsedQuery: shape.filter, winningPlan, rejectedPlans: [] } };
  if (verbosity !== 'queryPlanner') {
    out.executionStats = {
      executionSuccess: true,
      nReturned: stats.nReturned,
      executionTimeMillis: ms,
      totalKeysExamined: stats.keysExamined,
      totalDocsExamined: stats.docsExamined,
      executionStages: { ...winningPlan, nReturned: stats.nReturned },
    };
  }
  return out;
}

export const newStats = (): ReadStats => ({ sortedInMemory: false, keysExamined: 0, docsExamined: 0, nReturned: 0 });

/** The verbosity asked (queryPlanner, executionStats, allPlansExecution); anything else is 9 (FailedToParse). */
export function verbosityOf(v: unknown): string {
  const verbosity = v === undefined ? 'allPlansExecution' : v;
  if (!['queryPlanner', 'executionStats', 'allPlansExecution'].includes(verbosity as string))
    throw new MongoServerError('FailedToParse', `verbosity string must be one of {'queryPlanner', 'executionStats', 'allPlansExecution'}`);
  return verbosity as string;
}
