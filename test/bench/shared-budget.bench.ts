// One Hetzner project, 4 workers (each its own provider and budget, as Lambda containers are), 10 clusters of 50
// nodes created at once, on the sandbox's Hetzner emulator and a real DynamoDB (dynalite) for the shared budget.
// Providers are driven directly, each cluster built in order as the engine's steps build it (one call in flight
// per cluster): the engine's step scheduling would add its own waits to what is measured here, the budget.
// The project's bucket (3600, 1/s) holds more than the ~600 requests, so it could not bind: as in budget.test.ts,
// other tools have drained it to 100 when we start. The floor is the time that bucket needs for the requests the
// project accepted: (requests - 429s - 100) s, at 1 per second. The per-process baseline (each worker its own bucket) runs in the same run.
import { RateBudgets } from '@kubeplane/sdk/provider';
import { dynamoDbRateBudgets } from '@kubeplane/handlers/aws';
import { runHetznerWorkers, startDynalite, type HetznerWorkersResult } from '../helpers/hetzner-workers.js';
import type { BenchResult } from './types.js';

const SCENARIO = { seed: 1313, workers: 4, clusters: 10, nodesPerCluster: 50, left: 100 };

export async function run(): Promise<BenchResult[]> {
  const db = await startDynalite();
  let shared: HetznerWorkersResult;
  const started = performance.now();
  try {
    const tableName = await db.createTable();
    shared = await runHetznerWorkers({ ...SCENARIO, budgets: (_i, clock) => dynamoDbRateBudgets({ ...db.options, tableName, clock }) });
  } finally {
    await db.stop();
  }
  const sharedRealMs = performance.now() - started;
  const perProcess = await runHetznerWorkers({ ...SCENARIO, budgets: (_i, clock) => new RateBudgets(clock) });
  const ratio = (r: HetznerWorkersResult) => r.elapsedMs / r.floorMs;
  const name = `Hetzner ${SCENARIO.clusters} clusters x ${SCENARIO.nodesPerCluster} nodes, ${SCENARIO.workers} workers, one shared project budget (DynamoDB)`;
  const base = `per-process baseline`;
  const s = (r: HetznerWorkersResult) =>
    `${r.requests} requests, ${r.distinctNodes} nodes, ${r.budgetWaits} budget waits, ${(r.elapsedMs / 1000).toFixed(0)} s vs floor ${(r.floorMs / 1000).toFixed(0)} s`;
  return [
    {
      name: `${name}: 429s reaching the caller`,
      value: shared.throttledToCaller,
      unit: '429s',
      target: '0',
      note: `${base}: ${perProcess.throttledToCaller} (the project answered ${perProcess.throttledAtCloud} 429s)`,
    },
    {
      name: `${name}: budget overruns`,
      value: shared.overruns,
      unit: 'requests',
      target: '0',
      note: `requests finding the project's bucket empty; ${base}: ${perProcess.overruns}`,
    },
    {
      name: `${name}: total time vs rate-limit floor`,
      value: ratio(shared),
      unit: 'x floor',
      target: '<= 1.2',
      note: `${s(shared)} (${(sharedRealMs / 1000).toFixed(1)} s real); ${base}: ${ratio(perProcess).toFixed(3)}x, ${s(perProcess)}; ${SCENARIO.left} tokens left at start`,
    },
  ];
}
