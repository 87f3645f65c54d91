// What names a vendor's API document: shared by the response conformance check and the emulators' request check.
import type { RequestLeniency } from './validator.js';

/** A vendor's API document, copied into the package (packages/sandbox/specs/) from the vendor's published file. */
export interface VendorDocument {
  /** Its file name in packages/sandbox/specs/. */
  file: string;
  /** The API's base URL, whose paths the document describes (`https://api.hetzner.cloud/v1`). */
  baseUrl: string;
  /** Where the document is stricter about requests than the API is, with the evidence. */
  requestLeniency?: RequestLeniency[];
}
