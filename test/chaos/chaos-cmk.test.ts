// CMK clusters under the chaos schedules (see harness.ts, cmkChaosRun): 40 seeds in CI, 200 with `npm run chaos`.
import { describeCmkChaos } from './seeds.js';

describeCmkChaos();
