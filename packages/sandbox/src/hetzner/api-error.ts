// The Hetzner Cloud API's error, as the emulator raises it: an HTTP status and the `{error: {code, message,
// details}}` envelope's fields (https://docs.hetzner.cloud/reference/cloud#errors).

export type Json = Record<string, unknown>;
export type Labels = Record<string, string>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Json = {},
  ) {
    super(message);
  }
}

/** `invalid_input` naming the field, the way the API reports a request it cannot parse. */
export function invalidInput(field: string, message: string): ApiError {
  return new ApiError(400, 'invalid_input', `invalid input in field '${field}'`, { fields: [{ name: field, messages: [message] }] });
}
