// At least 200 seeded fault schedules in CI, even seeds here (see seeds.ts); `npm run chaos` runs 1,000.
import { describeChaos } from './seeds.js';

describeChaos(0);
