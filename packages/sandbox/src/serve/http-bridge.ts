// Bridges Node's HTTP servers to the sandbox's msw handlers: a node request becomes a fetch Request addressed to
// the cloud's real host (with the Host header the client sent, which SigV4 signs), and the Response goes back.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

/** Headers about this connection, not the message: never forwarded either way. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);

/** Larger bodies are refused (413): no cloud request of the emulated APIs comes near it (EC2 user-data is 16 KB). */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;

export class BodyTooLarge extends Error {}

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > limit) throw new BodyTooLarge(`request body over ${limit} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

/** The node request as a fetch Request to `url`; the client's headers, Host included, are kept as they were sent. */
export function toFetchRequest(req: IncomingMessage, url: string, body: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD' && body.length > 0;
  return new Request(url, { method, headers, ...(hasBody ? { body } : {}) });
}

/**
 * Writes the emulator's answer. A network-error Response (an emulated host where nothing listens yet) drops the
 * connection, as a client would see it from a dead address.
 */
export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  if (response.type === 'error') {
    res.destroy();
    return;
  }
  const headers: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== 'content-length' && name !== 'content-encoding') headers[name] = value;
  });
  if (response.headers.get('transfer-encoding') === 'chunked' && response.body) {
    await streamBody(res, response.status, headers, response.body);
    return;
  }
  const body = Buffer.from(await response.arrayBuffer());
  headers['content-length'] = body.length;
  res.writeHead(response.status, headers);
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/**
 * A response the emulator streams (a Kubernetes watch): each chunk goes out as it comes, as HTTP/1.1 chunked
 * transfer coding, until the emulator ends it or the client goes away (which cancels the emulator's stream).
 */
async function streamBody(res: ServerResponse, status: number, headers: OutgoingHttpHeaders, body: ReadableStream<Uint8Array>): Promise<void> {
  res.writeHead(status, headers);
  res.flushHeaders();
  const reader = body.getReader();
  const onClose = () => void reader.cancel().catch(() => undefined);
  res.once('close', onClose);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } finally {
    res.off('close', onClose);
    if (!res.destroyed) res.end();
  }
}

export function writePlain(res: ServerResponse, status: number, contentType: string, body: string): void {
  const bytes = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'content-type': contentType, 'content-length': bytes.length });
  res.end(bytes);
}
