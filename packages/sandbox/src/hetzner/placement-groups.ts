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
      ['GET /placement_groups', (c) => reply(p.list('placement_groups', p.placementGroups.values(), (g) => this.json(g), c.query, SORT_ID_NAME_CREATED))],
      ['POST /placement_groups', (c) => reply({ placement_group: this.json(this.#create(c.body)), action: null }, 201)],
      ['GET /placement_groups/{id}', (c) => reply({ placement_group: this.json(found(p.placementGroups, idParam(c), 'placement_group')) })],
      [
        'DELETE /placement_groups/{id}',
        (c) => {
          const id = idParam(c);
          found(p.placementGroups, id, 'placement_group');
          if (p.servers.find((s) => s.placementGroup === id)) throw new EmulatorError(409, 'conflict', `placement group ${id} still has servers`);
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
