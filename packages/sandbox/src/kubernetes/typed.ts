// An object as the API server sends it on its own (a watch event, a Table row's object): with its apiVersion and
// kind, which the store and list items leave out.
import { resourceVersion, specOf, type KubeObject, type Resource } from './store.js';

export function apiVersionOf(resource: Resource): string {
  const group = specOf(resource).group;
  return group ? `${group}/${resourceVersion(resource)}` : 'v1';
}

export function typed(resource: Resource, o: KubeObject): KubeObject {
  return { ...o, apiVersion: apiVersionOf(resource), kind: specOf(resource).kind };
}
