// Conformance for the emulators that have a vendor API document (a sandbox cloud's `document`: Hetzner's OpenAPI
// 3.0.3, Crusoe's Swagger 2.0): when KUBEPLANE_OPENAPI_CONFORMANCE_DIR names a directory, every response they give is
// validated, and so is every request body they accept (a 2xx answer to a body the vendor's schema refuses means the
// emulator is more lenient than the API, or a client sends what the real API would refuse); each violation is
// appended, one JSON line, to a file of this process there; the test run's global setup reads them all.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { getResponse, http, type HttpHandler } from 'msw';
import type { VendorDocument } from './vendor-document.js';
import type { Violation } from './validator.js';

export type { VendorDocument } from './vendor-document.js';

/**
 * The environment variable that turns the conformance check on: when it names a directory, every Sandbox validates each
 * request it accepts and each response it gives against the cloud's vendored API document (packages/sandbox/specs/) and
 * appends every violation to `<dir>/<pid>.jsonl` as a RecordedViolation.
 */
export const CONFORMANCE_DIR_ENV = 'KUBEPLANE_OPENAPI_CONFORMANCE_DIR';

/** A cloud that may have a document: a sandbox cloud's descriptor (clouds/descriptor.ts), or any `{ name, document }`. */
export interface DocumentedCloud {
  name: string;
  document?: VendorDocument | undefined;
}

/** One line of a conformance file: where a request or response of a sandbox cloud broke its vendor's API document. */
export interface RecordedViolation extends Violation {
  /** The cloud's name (a sandbox cloud's). */
  cloud: string;
  /** The concrete request, to find the test that made it. */
  request: string;
}

type Validate = (method: string, path: string, status: number, requestBody: unknown, responseBody: unknown) => Violation[];
const validators = new Map<string, Promise<Validate>>();

/** One validator per document per process: compiling schemas is the expensive part, and it is shared by every Sandbox. */
function validatorFor(document: VendorDocument): Promise<Validate> {
  let v = validators.get(document.file);
  if (!v) {
    v = (async () => {
      // The same validator the emulators check requests with (request-check.ts): the document is read and compiled once.
      const { documentValidator } = await import('./request-check.js');
      const validator = documentValidator(document);
      if (!validator)
        throw new Error(`${CONFORMANCE_DIR_ENV} is set, but ${document.file} is not in this installation of @kubeplane/sandbox (packages/sandbox/specs/)`);
      return (method, path, status, requestBody, responseBody) => [
        ...(status >= 200 && status < 300 ? validator.validateRequest(method, path, status, requestBody) : []),
        ...validator.validate(method, path, status, responseBody),
      ];
    })();
    validators.set(document.file, v);
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
 * `handlers` behind one handler that validates each response they give, and each request body they accept (unchanged) when conformance is on and the
 * cloud has a document; the handlers themselves otherwise. Network errors (a simulated timeout or lost response) have
 * no status to check.
 */
export function conformanceChecked(cloud: DocumentedCloud, handlers: HttpHandler[], env: NodeJS.ProcessEnv = process.env): HttpHandler[] {
  const dir = env[CONFORMANCE_DIR_ENV];
  const document = cloud.document;
  if (!dir || !document) return handlers;
  const file = join(dir, `${process.pid}.jsonl`);
  // The wrapper answers the documented API's host; the cloud's other hosts (Crusoe's managed clusters) keep their handlers.
  return [
    http.all(`${document.baseUrl}/*`, async ({ request }) => {
      const sent = await bodyOf(request);
      const response = await getResponse(handlers, request);
      if (!response || response.type === 'error') return response;
      const validate = await validatorFor(document);
      const url = new URL(request.url);
      const violations = validate(request.method, url.pathname, response.status, sent, await bodyOf(response));
      // Synchronous, so a violation is on disk even if the process is killed right after answering.
      for (const v of violations)
        appendFileSync(
          file,
          `${JSON.stringify({ cloud: cloud.name, request: `${request.method} ${url.pathname}${url.search}`, ...v } satisfies RecordedViolation)}\n`,
        );
      return response;
    }),
    ...handlers,
  ];
}
