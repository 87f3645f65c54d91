// Several workers, each its own provider and budget source as separate Lambda containers are, build clusters in
// one Hetzner project at once. With the budget shared on DynamoDB (dynalite) the project never answers 429 and
// its bucket is never exceeded; with a budget per process (what every container had before) it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateBudgets } from '@kubeplane/sdk/provider';
import { dynamoDbRateBudgets } from '@kubeplane/handlers/aws';
import { runHetznerWorkers, startDynalite, type Dynalite } from '../helpers/hetzner-workers.js';

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.stop();
});

const scenario = { seed: 13, workers: 4, clusters: 4, nodesPerCluster: 12, left: 40 };

describe('a Hetzner project budget shared by concurrent workers on DynamoDB', () => {
  it('lets no 429 reach a caller and never exceeds the project bucket', async () => {
    const tableName = await db.createTable();
    const run = await runHetznerWorkers({ ...scenario, budgets: (_i, clock) => dynamoDbRateBudgets({ ...db.options, tableName, clock }) });
    expect(run.distinctNodes).toBe(48);
    expect(run.nodes).toBe(48);
    expect(run.throttledAtCloud).toBe(0);
    expect(run.throttledToCaller).toBe(0);
    expect(run.overruns).toBe(0);
    // The budget bound: callers waited for it rather than being lucky.
    expect(run.budgetWaits).toBeGreaterThan(0);
    expect(run.requests).toBeGreaterThan(2 * scenario.left);
  });

  it('is what a budget per process fails to do: the same workers overrun the project', async () => {
    const run = await runHetznerWorkers({ ...scenario, budgets: (_i, clock) => new RateBudgets(clock) });
    expect(run.distinctNodes).toBe(48);
    expect(run.throttledAtCloud).toBeGreaterThan(0);
    expect(run.overruns).toBeGreaterThan(0);
  });
});
