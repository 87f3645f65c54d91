// Writes the typed model back as a native document (or as Claudie's InputManifest), so a manifest
// round-trips: parse -> serialize -> parse gives the same model.
import { toYaml } from '../yaml-text.js';
import { CLAUDIE_API_VERSION, CLAUDIE_KIND, NATIVE_API_VERSION, NATIVE_KIND, type Manifest } from './schema.js';

/** A manifest as a plain document in its own format or the other one. */
export function toDocument(manifest: Manifest, as: Manifest['source'] = manifest.source): Record<string, unknown> {
  const metadata = {
    name: manifest.name,
    ...(manifest.namespace !== undefined ? { namespace: manifest.namespace } : {}),
    // A manifest built in code may lack what validation fills in: leave it to validation to name what is missing.
    ...(manifest.labels !== undefined && Object.keys(manifest.labels).length ? { labels: manifest.labels } : {}),
    ...(manifest.annotations !== undefined && Object.keys(manifest.annotations).length ? { annotations: manifest.annotations } : {}),
  };
  const spec = {
    providers: manifest.providers,
    nodePools: manifest.nodePools,
    kubernetes: manifest.kubernetes,
    loadBalancers: manifest.loadBalancers,
  };
  return as === 'claudie'
    ? { apiVersion: CLAUDIE_API_VERSION, kind: CLAUDIE_KIND, metadata, spec }
    : { apiVersion: NATIVE_API_VERSION, kind: NATIVE_KIND, metadata, ...spec };
}

/** A manifest as YAML or JSON text, in its own format or the other one. */
export function serializeManifest(manifest: Manifest, format: 'yaml' | 'json' = 'yaml', as?: Manifest['source']): string {
  const doc = toDocument(manifest, as);
  return format === 'json' ? `${JSON.stringify(doc, null, 2)}\n` : toYaml(doc);
}
