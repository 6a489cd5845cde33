import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Model } from 'mongoose';
import { createTestDeps, type TestDeps } from './test-deps';

let deps: TestDeps;
beforeAll(async () => {
  deps = await createTestDeps();
});
afterAll(async () => deps?.close());

describe('createTestDeps (and ensureIndexes under it)', () => {
  it('builds every index the schemas declare, although autoIndex is off', async () => {
    for (const model of Object.values(deps.models) as Array<Model<unknown>>) {
      const declared = model.schema.indexes().map(([key]) => JSON.stringify(key));
      const built = (await model.collection.listIndexes().toArray()).map((i) => JSON.stringify(i.key));
      for (const key of declared) expect(built, `${model.modelName} ${key}`).toContain(key);
    }
  });

  it('enforces the unique ones: one membership per publisher and program', async () => {
    const doc = { publisher_id: 'pub_x', program_id: 7, status: 'approved' as const };
    await deps.models.Membership.create(doc);
    await expect(deps.models.Membership.create(doc)).rejects.toMatchObject({ code: 11000 });
  });
});
