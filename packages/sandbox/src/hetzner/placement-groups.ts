// Placement groups of the emulated Hetzner project: `spread` groups whose servers run on different hosts
// (https://docs.hetzner.cloud/reference/cloud#placement-groups).
import { EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { found, type HetznerProject, type HetznerRoute, idParam, SORT_ID_NAME_CREATED } from './project.js';
import type { PlacementGroup } from './resources.js';

export class PlacementGroups {
  constructor(private readonly p: HetznerProject) {}

  routes(): HetznerRoute[] {
    const p = this.p;
    return [
      [
        'GET /placement_groups',
        (c) => {
          // `type` filters by the group's type; every group is `spread`, the only type there is.
          const types = c.query.getAll('type');
          const chosen = p.placementGroups.filter(() => types.length === 0 || types.includes('spread'));
          return reply(p.list('placement_groups', chosen, (g) => this.json(g), c.query, SORT_ID_NAME_CREATED));
        },
      ],
      ['POST /placement_groups', (c) => reply({ placement_group: this.json(this.#create(c.body)), action: null }, 201)],
      ['GET /placement_groups/{id}', (c) => reply({ placement_group: this.json(found(p.placementGroups, idParam(c), 'placement_group')) })],
      [
        'DELETE /placement_groups/{id}',
        (c) => {
          const id = idParam(c);
          found(p.placementGroups, id, 'placement_group');
          // The API documents no error of its own for DELETE /placement_groups/{id}; a group that still holds servers is
          // refused as a firewall still applied is (422 `resource_in_use`, DELETE /firewalls/{id}). Not `conflict`:
          // that code means "the resource has changed during the request, please retry", and the hcloud CLI retries it
          // without end (the hang issue 38 found).
          if (p.servers.find((s) => s.placementGroup === id))
            throw new EmulatorError(422, 'resource_in_use', `placement group ${id} still has servers: remove them from it first`);
          p.placementGroups.delete(id);
          return noContent();
        },
      ],
    ];
  }

  #create(body: Json): PlacementGroup {
    const p = this.p;
    const name = p.name(body['name'], p.placementGroups.values(), 'placement_group');
    const g: PlacementGroup = { id: p.id(), name, labels: p.labels(body['labels']), created: p.now() };
    p.placementGroups.set(g.id, g);
    return g;
  }

  json(g: PlacementGroup): Json {
    return {
      id: g.id,
      name: g.name,
      labels: g.labels,
      type: 'spread',
      servers: this.p.servers.filter((s) => s.placementGroup === g.id).map((s) => s.id),
      created: this.p.iso(g.created),
    };
  }
}
