// Actions of the emulated Hetzner project (https://docs.hetzner.cloud/reference/cloud#actions): every change the API
// makes asynchronously is one, running until its time in the virtual clock has come (project.ts makes them). Read
// through GET /actions?id=…, and per resource family as the API serves them: `/<family>/actions`, `/<family>/actions/{id}`,
// `/<family>/{id}/actions` and `/<family>/{id}/actions/{action_id}`.
import { EmulatorError, type Json, reply } from '../emulator/index.js';
import { invalidInput } from './dialect.js';
import { found, type HetznerProject, type HetznerRoute, idParam } from './project.js';
import type { Action } from './resources.js';

/** The families with action endpoints, by path segment: the `resources[].type` their actions name. */
export const ACTION_FAMILIES = {
  servers: 'server',
  floating_ips: 'floating_ip',
  primary_ips: 'primary_ip',
  volumes: 'volume',
  load_balancers: 'load_balancer',
  networks: 'network',
  firewalls: 'firewall',
  certificates: 'certificate',
  images: 'image',
} as const;

export type ActionFamily = keyof typeof ACTION_FAMILIES;

/** Whether the family's resource `id` exists (its `/<family>/{id}/actions` is then served, else 404 not_found). */
export type ResourceExists = Record<ActionFamily, (id: number) => boolean>;

// The `sort` fields of every action list (list_actions_for_* in hetzner-cloud-openapi.json).
const ACTION_SORT = ['id', 'command', 'status', 'started', 'finished'];
const ACTION_STATUS = ['running', 'success', 'error'];

export function actionRoutes(p: HetznerProject, exists: ResourceExists): HetznerRoute[] {
  /** A list of actions filtered by `id` and `status`, sorted and paged as the API lists them. */
  const list = (actions: Action[], query: URLSearchParams): Json => {
    const ids = query.getAll('id').map(Number);
    const status = query.getAll('status');
    for (const s of status) if (!ACTION_STATUS.includes(s)) throw invalidInput('status', `must be one of ${ACTION_STATUS.join(', ')}`);
    const chosen = actions
      .filter((a) => ids.length === 0 || ids.includes(a.id))
      .map((a) => p.actionJson(a))
      .filter((a) => status.length === 0 || status.includes(String(a['status'])));
    return p.listJson('actions', chosen, query, ACTION_SORT);
  };
  const ofType = (type: string) => (a: Action) => a.resources.some((r) => r.type === type);
  const ofResource = (type: string, id: number) => (a: Action) => a.resources.some((r) => r.type === type && r.id === id);
  const notFound = (id: number) => new EmulatorError(404, 'not_found', `action with ID '${id}' not found`);
  const family = (segment: ActionFamily): HetznerRoute[] => {
    const type = ACTION_FAMILIES[segment];
    const resource = (text: string | undefined): number => {
      const id = Number(text);
      if (!Number.isInteger(id) || !exists[segment](id)) throw new EmulatorError(404, 'not_found', `${type} with ID '${text}' not found`);
      return id;
    };
    const action = (text: string | undefined, keep: (a: Action) => boolean): Json => {
      const id = Number(text);
      const a = Number.isInteger(id) ? p.actions.get(id) : undefined;
      if (!a || !keep(a)) throw notFound(id);
      return { action: p.actionJson(a) };
    };
    return [
      [`GET /${segment}/actions`, (c) => reply(list(p.actions.filter(ofType(type)), c.query))],
      [`GET /${segment}/actions/{id}`, (c) => reply(action(c.params['id'], ofType(type)))],
      [
        `GET /${segment}/{id}/actions`,
        (c) => {
          const id = resource(c.params['id']);
          return reply(list(p.actions.filter(ofResource(type, id)), c.query));
        },
      ],
      [
        `GET /${segment}/{id}/actions/{action_id}`,
        (c) => {
          const id = resource(c.params['id']);
          return reply(action(c.params['action_id'], ofResource(type, id)));
        },
      ],
    ];
  };
  return [
    // GET /actions takes the `id`s it returns (required since listing every action was removed on 2025-01-30).
    [
      'GET /actions',
      (c) => {
        if (c.query.getAll('id').length === 0) throw invalidInput('id', 'is required: listing every action was removed on 2025-01-30');
        return reply(
          list(
            p.actions.filter(() => true),
            c.query,
          ),
        );
      },
    ],
    ['GET /actions/{id}', (c) => reply({ action: p.actionJson(found(p.actions, idParam(c), 'action')) })],
    ...(Object.keys(ACTION_FAMILIES) as ActionFamily[]).flatMap(family),
  ];
}
