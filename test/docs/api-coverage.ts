// The served sandbox's coverage table in docs/sandbox.md: per API, every operation of the vendor's own model or
// specification, as emulated or as refused in the sealed sandbox's words. Rendered from the emulators' route tables
// and the vendor documents; `api-coverage.test.ts` checks the document holds it, and
// `npx tsx --conditions=@kubeplane/source test/docs/api-coverage.ts --write` rewrites it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Sandbox } from '@kubeplane/sandbox';
import { withSection } from '../helpers/doc-section.js';
import { EC2_OPERATIONS, ROUTE53_OPERATIONS, STS_OPERATIONS } from '../../packages/sandbox/src/aws-operations.js';

const root = join(import.meta.dirname, '..', '..');
export const DOC = join(root, 'docs', 'sandbox.md');
const BEGIN = '<!-- coverage table: rendered by test/docs/api-coverage.ts -->';
const END = '<!-- end of coverage table -->';

export interface ApiCoverage {
  api: string;
  /** Where the operation names come from. */
  source: string;
  /** How an operation that is not emulated is refused. */
  refusal: string;
  served: string[];
  refused: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** `GET /servers/{id}` and `GET /servers/{server_id}` are one operation. */
const shape = (operation: string) => operation.replace(/\{[^}]+\}/g, '{}');

/** Every `METHOD /path` of an OpenAPI or Swagger document. */
function documentOperations(file: string): string[] {
  const doc = JSON.parse(readFileSync(join(root, 'packages', 'sandbox', 'specs', file), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => m in item).map((m) => `${m.toUpperCase()} ${path}`));
}

/** `routed` maps a document's operation to the emulator's route for it (Crusoe's routes are below the project). */
function split(api: Omit<ApiCoverage, 'served' | 'refused'>, all: Iterable<string>, served: Iterable<string>, routed = (n: string) => n): ApiCoverage {
  const shapes = new Set([...served].map(shape));
  const names = [...new Set(all)];
  const isServed = (n: string) => shapes.has(shape(routed(n)));
  return { ...api, served: names.filter(isServed), refused: names.filter((n) => !isServed(n)) };
}

export function coverage(): ApiCoverage[] {
  const sandbox = new Sandbox({ seed: 1 });
  try {
    const sealed = (what: string) => `${what}: "the sandbox does not emulate …" / "the sandbox does not serve …"`;
    return [
      split(
        { api: 'EC2', source: "botocore 1.29.27's model (aws-operations.ts)", refusal: sealed('400 UnsupportedOperation') },
        [...EC2_OPERATIONS].sort(),
        sandbox.ec2.servedOperations(),
      ),
      split(
        { api: 'Route 53', source: "botocore 1.29.27's model", refusal: sealed('400 InvalidAction') },
        ROUTE53_OPERATIONS.map(([, , name]) => name),
        sandbox.route53.servedOperations(),
      ),
      split(
        { api: 'STS', source: "botocore 1.29.27's model", refusal: sealed('400 InvalidAction') },
        [...STS_OPERATIONS].sort(),
        sandbox.sts.servedOperations(),
      ),
      split(
        { api: 'Hetzner Cloud', source: "Hetzner's OpenAPI document (packages/sandbox/specs)", refusal: sealed('400 unsupported_error') },
        documentOperations('hetzner-cloud-openapi.json'),
        sandbox.hetzner.servedOperations(),
      ),
      split(
        { api: 'Crusoe Cloud', source: "Crusoe's Swagger document (packages/sandbox/specs)", refusal: sealed('400 bad_request') },
        documentOperations('crusoe-api-v1-swagger.json'),
        sandbox.crusoe.servedOperations(),
        (n) => n.replace(' /projects/{project_id}/', ' /'),
      ),
    ];
  } finally {
    sandbox.close();
  }
}

export function renderCoverage(apis: ApiCoverage[] = coverage()): string {
  const lines = [BEGIN, '', '| API | Operations (source) | Emulated | Refused as not emulated |', '|---|---|---:|---|'];
  for (const a of apis)
    lines.push(`| ${a.api} | ${a.served.length + a.refused.length} (${a.source}) | ${a.served.length} | ${a.refused.length}, ${a.refusal} |`);
  for (const a of apis) {
    lines.push('', `<details><summary>${a.api}: the ${a.served.length} emulated operations, and the ${a.refused.length} refused</summary>`, '');
    lines.push(`Emulated: ${a.served.map((n) => `\`${n}\``).join(', ')}.`, '');
    lines.push(`Refused: ${a.refused.map((n) => `\`${n}\``).join(', ')}.`, '', '</details>');
  }
  lines.push('', END);
  return lines.join('\n');
}

export function withCoverage(doc: string, table: string): string {
  return withSection(doc, BEGIN, END, table);
}

if (process.argv.includes('--write')) writeFileSync(DOC, withCoverage(readFileSync(DOC, 'utf8'), renderCoverage()));
