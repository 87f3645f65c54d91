// The shared rate budgets on DynamoDB (dynalite) keep the rules every budget keeps, with each worker its own
// client on one table, as separate Lambda containers are.
import { afterAll, beforeAll } from 'vitest';
import { describeRateBudgetSuite } from '@kubeplane/sdk/conformance';
import { startDynalite, type Dynalite } from '../../../../test/helpers/hetzner-workers.js';
import { dynamoDbRateBudgets } from './dynamodb-rate-budget.js';

let db: Dynalite;
beforeAll(async () => {
  db = await startDynalite();
});
afterAll(async () => {
  await db.stop();
});

describeRateBudgetSuite('on DynamoDB (dynamoDbRateBudgets)', {
  inFlightAllowance: 10,
  async store(clock) {
    const tableName = await db.createTable();
    return { worker: () => dynamoDbRateBudgets({ ...db.options, tableName, clock }) };
  },
});
