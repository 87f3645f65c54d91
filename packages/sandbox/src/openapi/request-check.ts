// Requests checked as the vendor's API checks them, from its published document (packages/sandbox/specs/): an emulator
// with a document refuses a query parameter or body field of the wrong type, a missing required one, a value outside
// its enum and (where the API does) an unknown body field, in its vendor's error, before any route reads the request.
import { readFileSync } from 'node:fs';
import type { EmulatorError, WireCall } from '../emulator/index.js';
import type { VendorDocument } from './vendor-document.js';
import { ApiValidator, type RequestProblem } from './validator.js';

const validators = new Map<string, ApiValidator | undefined>();

/**
 * The validator of a vendored document, loaded once per process (reading and compiling the 2 MB of documents is the
 * expensive part). Undefined when the document is not in this installation of @kubeplane/sandbox.
 */
export function documentValidator(document: VendorDocument): ApiValidator | undefined {
  if (!validators.has(document.file)) {
    let text: string | undefined;
    try {
      text = readFileSync(new URL(`../../specs/${document.file}`, import.meta.url), 'utf8');
    } catch {
      text = undefined;
    }
    validators.set(
      document.file,
      text === undefined ? undefined : new ApiValidator(JSON.parse(text) as Record<string, unknown>, document.requestLeniency ?? []),
    );
  }
  return validators.get(document.file);
}

export interface RequestCheckOptions {
  /** Whether a body field the document names nowhere is refused (the API does; a Go server that ignores them does not). */
  unknownFields: boolean;
  /** The vendor's error for the problems found (at least one). */
  refuse(problems: RequestProblem[]): EmulatorError;
}

/** The frame's `checkRequest` for an emulator with `document`: the vendor's refusal, or undefined for a request it takes. */
export function requestChecker(document: VendorDocument, options: RequestCheckOptions): (call: WireCall, body: unknown) => EmulatorError | undefined {
  return (call, body) => {
    const validator = documentValidator(document);
    if (!validator) return undefined;
    const sent = call.method === 'POST' || call.method === 'PUT' || call.method === 'PATCH' ? body : undefined;
    const problems = validator.requestProblems(call.method, call.url.pathname, call.query, sent, { unknownFields: options.unknownFields });
    return problems.length > 0 ? options.refuse(problems) : undefined;
  };
}
