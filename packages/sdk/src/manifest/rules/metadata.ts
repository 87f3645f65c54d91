// metadata: the project's name; and the document's own Kubernetes metadata, which names no part of any cluster.
import { checkDnsName } from '../names.js';
import type { RulesContext } from './context.js';

export function checkMetadata({ m, out }: RulesContext): void {
  // metadata sits beside spec in a Claudie document, so its paths take no spec. prefix.
  const at = (field: string, severity: 'error' | 'warning', message: string) => out.issues.push({ severity, path: `metadata.${field}`, message });
  if (m.name === '') at('name', 'error', 'metadata.name is required; it names the project');
  else {
    const problem = checkDnsName(m.name, 'metadata.name');
    if (problem) at('name', 'error', problem);
  }
  // Claudie's project is <namespace>-<name>; kubeplane's is the name alone (there is no management cluster to hold
  // namespaces), so two InputManifests of one name in two namespaces would be one project here.
  if (m.namespace !== undefined)
    at(
      'namespace',
      'warning',
      `the namespace is not part of the project: kubeplane names it "${m.name}" alone, so a manifest of the same name ` +
        `from another namespace is the same project`,
    );
  // Labels and annotations of the manifest object itself (in Claudie, of the InputManifest resource): nothing in a
  // cluster gets them. Said, so that no one expects them on the nodes.
  for (const field of ['labels', 'annotations'] as const) {
    const value = m[field];
    if (value && Object.keys(value).length > 0)
      at(
        field,
        'warning',
        `metadata.${field} belong to the manifest document and are put on nothing kubeplane makes; ` +
          `node ${field} go in the pool's ${field} (nodePools.dynamic[].${field})`,
      );
  }
}
