// Actions of the emulated Hetzner project (https://docs.hetzner.cloud/reference/cloud#actions): every change the API
// makes asynchronously is one, running until its time in the virtual clock has come (project.ts makes them).
import { reply } from '../emulator/index.js';
import { found, type HetznerProject, type HetznerRoute, idParam } from './project.js';

export function actionRoutes(p: HetznerProject): HetznerRoute[] {
  return [
    [
      'GET /actions',
      (c) => {
        const ids = c.query.getAll('id').map(Number);
        const chosen = p.actions.filter((a) => ids.length === 0 || ids.includes(a.id));
        return reply(
          p.listJson(
            'actions',
            chosen.map((a) => p.actionJson(a)),
            c.query,
            undefined,
          ),
        );
      },
    ],
    ['GET /actions/{id}', (c) => reply({ action: p.actionJson(found(p.actions, idParam(c), 'action')) })],
  ];
}
