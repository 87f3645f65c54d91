// Conformance for the emulators that have a vendor API document (Hetzner: OpenAPI 3.0.3, Crusoe: Swagger 2.0): when
// KUBEPLANE_OPENAPI_CONFORMANCE_DIR names a directory, every response they give is validated, and so is every request
// body they accept (a 2xx answer to a body the vendor's schema refuses means the emulator is more lenient than the API,
// or a client sends what the real API would refuse); each violation is appended, one JSON line, to a file of this
// process there; the test run's global setup reads them all.
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getResponse, http, type HttpHandler } from 'msw';
import type { RequestLeniency, Violation } from './validator.js';

export const CONFORMANCE_DIR_ENV = 'KUBEPLANE_OPENAPI_CONFORMANCE_DIR';

export type DocumentedCloud = 'hetzner' | 'crusoe';

export interface RecordedViolation extends Violation {
  cloud: DocumentedCloud;
  /** The concrete request, to find the test that made it. */
  request: string;
}

/** The vendor documents, copied into the repository (packages/sandbox/specs/) from the vendors' published files. */
const DOCUMENTS: Record<DocumentedCloud, { file: string; baseUrl: string }> = {
  hetzner: { file: 'hetzner-cloud-openapi.json', baseUrl: 'https://api.hetzner.cloud/v1' },
  crusoe: { file: 'crusoe-api-v1-swagger.json', baseUrl: 'https://api.cloud.crusoe.ai/v1' },
};

/** Where a vendor's document is stricter about requests than its API (see RequestLeniency). */
const REQUEST_LENIENCY: Record<DocumentedCloud, RequestLeniency[]> = {
  hetzner: [
    ...['POST /load_balancers', 'POST /load_balancers/{id}/actions/add_service'].map((operation) => ({
      operation,
      keyword: 'required' as const,
      pointer: /^(\/services\/\d+)?$/,
      properties: ['health_check'],
      reason:
        'a service gets a default health check: `hcloud load-balancer add-service` has no required health-check flag, ' +
        "hcloud-go sends health_check with omitempty, and Terraform's hcloud_load_balancer_service example has none",
    })),
    {
      operation: 'POST /servers',
      pointer: /^\/image$/,
      keyword: 'type',
      reason:
        'the document types `image` as a string (ID or name), but the hcloud CLI (hcloud-go) sends an image it resolved ' +
        'to an ID as a JSON number (hcloud-cli.e2e.test.ts sees it), and the API takes it',
    },
  ],
  crusoe: [
    {
      operation: 'POST /projects/{project_id}/compute/vms/instances',
      keyword: 'required',
      pointer: /^\/network_interfaces\/\d+(\/ips\/\d+(\/public_ipv4)?)?$/,
      properties: ['id', 'name', 'network', 'interface_type', 'mac_address', 'external_dns_name', 'private_ipv4', 'address'],
      reason:
        "the create request reuses the VM's NetworkInterface schema, whose every field is required, including the id, MAC " +
        'and addresses only the API assigns; clients send the subnet and the public IP type',
    },
  ],
};

type Validate = (method: string, path: string, status: number, requestBody: unknown, responseBody: unknown) => Violation[];
const validators = new Map<DocumentedCloud, Promise<Validate>>();

/** One validator per document per process: compiling schemas is the expensive part, and it is shared by every Sandbox. */
function validatorFor(cloud: DocumentedCloud): Promise<Validate> {
  let v = validators.get(cloud);
  if (!v) {
    v = (async () => {
      // Loaded only when conformance is on: ajv and the 2 MB of documents stay out of ordinary runs.
      const { ApiValidator } = await import('./validator.js');
      const specs = new URL('../../specs/', import.meta.url);
      const text = await readFile(new URL(DOCUMENTS[cloud].file, specs), 'utf8').catch(() => {
        // The documents live in the repository only (the published package leaves them out).
        throw new Error(
          `${CONFORMANCE_DIR_ENV} is set, but ${DOCUMENTS[cloud].file} is not in this installation ` +
            `of @kubeplane/sandbox: the response check runs from the kubeplane repository`,
        );
      });
      const doc = JSON.parse(text) as Record<string, unknown>;
      const validator = new ApiValidator(doc, REQUEST_LENIENCY[cloud]);
      return (method, path, status, requestBody, responseBody) => [
        ...(status >= 200 && status < 300 ? validator.validateRequest(method, path, status, requestBody) : []),
        ...validator.validate(method, path, status, responseBody),
      ];
    })();
    validators.set(cloud, v);
  }
  return v;
}

async function bodyOf(message: Request | Response): Promise<unknown> {
  const text = await message.clone().text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * `handlers` behind one handler that validates each response they give (unchanged) when conformance is on; the
 * handlers themselves otherwise. Network errors (a simulated timeout or lost response) have no status to check.
 */
export function conformanceChecked(cloud: DocumentedCloud, handlers: HttpHandler[], env: NodeJS.ProcessEnv = process.env): HttpHandler[] {
  const dir = env[CONFORMANCE_DIR_ENV];
  if (!dir) return handlers;
  const file = join(dir, `${process.pid}.jsonl`);
  // The wrapper answers the documented API's host; the cloud's other hosts (Crusoe's managed clusters) keep their handlers.
  return [
    http.all(`${DOCUMENTS[cloud].baseUrl}/*`, async ({ request }) => {
      const sent = await bodyOf(request);
      const response = await getResponse(handlers, request);
      if (!response || response.type === 'error') return response;
      const validate = await validatorFor(cloud);
      const url = new URL(request.url);
      const violations = validate(request.method, url.pathname, response.status, sent, await bodyOf(response));
      // Synchronous, so a violation is on disk even if the process is killed right after answering.
      for (const v of violations)
        appendFileSync(file, `${JSON.stringify({ cloud, request: `${request.method} ${url.pathname}${url.search}`, ...v } satisfies RecordedViolation)}\n`);
      return response;
    }),
    ...handlers,
  ];
}
