// Which request bodies the emulated API server can decode. It speaks JSON only: a body in another media type
// (kubectl sends built-in kinds as protobuf) gets 415, on which client-go falls back to JSON, as it does against
// an API server that cannot decode protobuf for a kind (apimachinery/pkg/runtime/serializer, negotiation errors).
import { ApiError } from './store.js';

/** Media types a create or update body may be in (PATCH has its own: see cluster.ts). */
const ACCEPTED_BODY_TYPES = ['application/json'];

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
  throw new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${ACCEPTED_BODY_TYPES.join(', ')}`);
}
