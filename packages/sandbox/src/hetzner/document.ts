// Hetzner's published OpenAPI document (packages/sandbox/specs/hetzner-cloud-openapi.json) as the sandbox reads it:
// where it is stricter about requests than the API, with the evidence, and the API's refusal of a request it breaks.
import { EmulatorError } from '../emulator/index.js';
import type { VendorDocument } from '../openapi/conformance.js';
import type { RequestProblem } from '../openapi/validator.js';

/** The Hetzner Cloud API's base URL (also emulator.ts's HETZNER_API). */
const BASE_URL = 'https://api.hetzner.cloud/v1';

export const HETZNER_DOCUMENT: VendorDocument = {
  file: 'hetzner-cloud-openapi.json',
  baseUrl: BASE_URL,
  requestLeniency: [
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
      operation: 'POST /networks/{id}/actions/add_subnet',
      pointer: /^$/,
      keyword: 'unknown',
      properties: ['gateway'],
      reason:
        'the request reuses `subnet`, the response model without the gateway, but the hcloud CLI (hcloud-go) sends `gateway` ' +
        'with every add-subnet and the API takes it (hcloud-cli.e2e.test.ts adds a subnet that way)',
    },
    {
      operation: 'POST /servers',
      pointer: /^\/image$/,
      keyword: 'type',
      reason:
        'the document types `image` as a string (ID or name), but the hcloud CLI (hcloud-go) sends an image it resolved ' +
        'to an ID as a JSON number (hcloud-cli.e2e.test.ts sees it), and the API takes it',
    },
  ],
};

/**
 * A request the document refuses, in the API's words: 400 `invalid_input`, "invalid input in field 'image'" (or "in
 * fields 'assignee_id', 'datacenter'" for several, as hetznercloud/cli#1175 shows), each field with its messages in
 * `details.fields`; a body field the API does not know is "invalid input: unknown field name 'labelkey'" (the API's
 * answer to an unknown field of create_image, cloudpanel-io/cloudpanel-ce#659).
 */
export function hetznerRefusal(problems: RequestProblem[]): EmulatorError {
  const fields = new Map<string, string[]>();
  for (const p of problems) fields.set(p.field, [...(fields.get(p.field) ?? []), p.message]);
  const details = { fields: [...fields].map(([name, messages]) => ({ name, messages })) };
  const unknown = problems.find((p) => p.kind === 'unknown');
  if (unknown) return new EmulatorError(400, 'invalid_input', `invalid input: unknown field name '${unknown.field}'`, { details });
  const names = [...fields.keys()].map((f) => `'${f}'`);
  return new EmulatorError(400, 'invalid_input', `invalid input in field${names.length > 1 ? 's' : ''} ${names.join(', ')}`, { details });
}
