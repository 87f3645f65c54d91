// Which request bodies the emulated API server can decode: JSON, and protobuf for the kinds protobuf.ts knows
// (kubectl's typed clients send built-in kinds as protobuf and do not retry in JSON on 415: client-go 1.32 falls back
// only from CBOR). Any other media type gets 415 with the API server's Status
// (apimachinery/pkg/runtime/serializer negotiation errors). Responses are always JSON, whatever the Accept header
// prefers: client-go decodes by the response's Content-Type.
import { ApiError } from './store.js';

/** Media types a create or update body may be in (PATCH has its own: see cluster.ts). */
const ACCEPTED_BODY_TYPES = ['application/json', 'application/vnd.kubernetes.protobuf'];
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The media type of a Content-Type header, lower-cased, without parameters; '' when absent. */
export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Refuses a body the server cannot decode, with the Status the API server answers (negotiation.NewUnsupportedMediaTypeError).
 * A PATCH's body is JSON in a patch media type (`application/*+json`), checked by the patch code.
 */
export function requireDecodableBody(method: string, contentType: string | null): void {
  const type = mediaType(contentType);
  if (type === '' || ACCEPTED_BODY_TYPES.includes(type)) return;
  if (method === 'PATCH' && (type.endsWith('+json') || type.endsWith('+yaml'))) return;
  throw new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${ACCEPTED_BODY_TYPES.join(', ')}`,
  );
}
