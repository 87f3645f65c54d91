// Vendors Kubernetes' published OpenAPI v2 documents (one swagger.json per minor) into
// src/kubernetes/openapi-spec/, kept to the API groups the emulator serves, gzipped.
//
//   npx tsx packages/sandbox/scripts/vendor-kubernetes-openapi.ts <minor> <swagger.json> [<source note>]
//
// Kept: every path of a group-version the emulator serves (store.ts RESOURCES; the whole group-version, so that a
// kind another change starts serving finds its schema), those groups' discovery paths and /version/, and every
// definition those paths reach. Nothing in what is kept is changed.
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { RESOURCES, resourceVersion, specOf, type Resource } from '../src/kubernetes/store.js';

type Json = Record<string, unknown>;

const [minorArg, input, source] = process.argv.slice(2);
if (!minorArg || !input) {
  console.error('usage: vendor-kubernetes-openapi.ts <minor> <swagger.json> [<source note>]');
  process.exit(2);
}
const doc = JSON.parse(readFileSync(input, 'utf8')) as Json;

const prefixes = new Set<string>();
const groups = new Set<string>();
for (const resource of Object.keys(RESOURCES) as Resource[]) {
  const { group } = specOf(resource);
  prefixes.add(group ? `/apis/${group}/${resourceVersion(resource)}/` : `/api/${resourceVersion(resource)}/`);
  if (group) groups.add(`/apis/${group}/`);
}
const keep = (path: string): boolean =>
  path === '/version/' || path === '/api/' || path === '/apis/' || groups.has(path) || [...prefixes].some((p) => path.startsWith(p));

const paths = Object.fromEntries(Object.entries(doc['paths'] as Json).filter(([p]) => keep(p)));
const definitions = doc['definitions'] as Record<string, Json>;
const parameters = (doc['parameters'] ?? {}) as Record<string, Json>;

// Every definition and shared parameter the kept paths reach, following $refs.
const reached = new Set<string>();
const usedParams = new Set<string>();
function visit(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(visit);
  if (value === null || typeof value !== 'object') return;
  for (const [k, v] of Object.entries(value as Json)) {
    if (k === '$ref' && typeof v === 'string') {
      if (v.startsWith('#/definitions/')) {
        const name = v.slice('#/definitions/'.length);
        if (!reached.has(name)) {
          reached.add(name);
          visit(definitions[name]);
        }
      } else if (v.startsWith('#/parameters/')) {
        const name = v.slice('#/parameters/'.length);
        if (!usedParams.has(name)) {
          usedParams.add(name);
          visit(parameters[name]);
        }
      }
    } else visit(v);
  }
}
visit(paths);

const out = {
  ...doc,
  paths,
  definitions: Object.fromEntries(Object.entries(definitions).filter(([name]) => reached.has(name))),
  parameters: Object.fromEntries(Object.entries(parameters).filter(([name]) => usedParams.has(name))),
  ...(source ? { 'x-kubeplane-source': source } : {}),
};
const target = fileURLToPath(new URL(`../src/kubernetes/openapi-spec/swagger-v1.${minorArg}.json.gz`, import.meta.url));
const body = gzipSync(JSON.stringify(out), { level: 9 });
writeFileSync(target, body);
console.log(`${target}: ${Object.keys(paths).length} paths, ${reached.size} definitions, ${body.length} bytes`);
