// Where a request to a served port goes in the sandbox: the real cloud URL the emulators answer on. Each sandbox cloud
// says how its port routes (its descriptor's `serve.route`); an API under a path prefix of its own (`/v1`,
// `/client/v4`) routes with `apiTarget`.

export type Target = { url: string } | { status: number; contentType: string; body: string };

/** An API served on a port of its own, under its real path prefix (`/v1`, `/client/v4`). */
export interface ServedApi {
  name: string;
  /** The real base URL (`https://api.hetzner.cloud/v1`). */
  base: string;
  /** The cloud's own error body (JSON) for a request the server refuses before the emulator sees it. */
  error: (status: 400 | 404, message: string) => string;
}

/**
 * The served path on the real host, unchanged: path and query are what the client sent, byte for byte (Crusoe's
 * signature covers both). A target the URL parser would rewrite (dot segments, unescaped characters) is refused
 * rather than changed behind the client's back; anything outside the API's prefix is the cloud's own 404.
 */
export function apiTarget(api: ServedApi, path: string): Target {
  const base = new URL(api.base);
  const refuse = (status: 400 | 404, message: string): Target => ({ status, contentType: 'application/json', body: api.error(status, message) });
  if (!(path === base.pathname || path.startsWith(`${base.pathname}/`) || path.startsWith(`${base.pathname}?`)))
    return refuse(404, `the ${api.name} API is served under ${base.pathname}`);
  const url = new URL(`${base.origin}${path}`);
  const normal = `${url.pathname}${url.search}`;
  if (normal !== path) return refuse(400, `the ${api.name} API takes the request path normalised and escaped, as ${normal}`);
  return { url: url.href };
}
