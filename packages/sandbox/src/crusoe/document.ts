// Crusoe's published Swagger 2.0 document (packages/sandbox/specs/crusoe-api-v1-swagger.json) as the sandbox reads it:
// where it is stricter about requests than the API, with the evidence, and the API's refusal of a request it breaks.
import type { EmulatorError } from '../emulator/index.js';
import type { VendorDocument } from '../openapi/conformance.js';
import type { RequestProblem } from '../openapi/validator.js';
import { badRequest } from './dialect.js';

/** The Crusoe Cloud API's base URL (also emulator.ts's CRUSOE_API). */
const BASE_URL = 'https://api.cloud.crusoe.ai/v1';

export const CRUSOE_DOCUMENT: VendorDocument = {
  file: 'crusoe-api-v1-swagger.json',
  baseUrl: BASE_URL,
  requestLeniency: [
    {
      operation: 'POST /projects/{project_id}/compute/vms/instances',
      keyword: 'required',
      pointer: /^\/network_interfaces\/\d+(\/ips\/\d+(\/public_ipv4)?)?$/,
      properties: ['id', 'name', 'network', 'subnet', 'interface_type', 'mac_address', 'external_dns_name', 'private_ipv4', 'address'],
      reason:
        "the create request reuses the VM's NetworkInterface schema, whose every field is required, including the id, MAC " +
        'and addresses only the API assigns; clients send the subnet and the public IP type, and a VM given no subnet ' +
        "goes into its location's default VPC subnet (the project's default VPC, emulator.ts createDefaultVpc)",
    },
  ],
};

/**
 * A request the document refuses, in the API's envelope: 400 `bad_request` naming each field and what is wrong with
 * it. Unknown body fields are not refused: the API decodes bodies as Go's encoding/json does, which ignores them.
 */
export function crusoeRefusal(problems: RequestProblem[]): EmulatorError {
  return badRequest(`invalid request: ${problems.map((p) => `${p.in === 'query' ? 'query parameter' : 'field'} '${p.field}' ${p.message}`).join('; ')}`);
}
