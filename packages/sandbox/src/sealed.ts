// The sandbox has no network: a request no emulator claims fails at once, with an error that names the method,
// host and path, instead of leaving the machine.

/**
 * The error a request the sandbox does not serve fails with. It carries `code` and `errno` as Node's network errors
 * do: msw's interceptors fail the request with such an error as it is (fetch rejects with it, `http.request` emits
 * it), where any other error would become a made-up 500 response. The code is no transient one, so neither the AWS
 * SDK nor got retries it.
 */
export class SandboxUnservedRequestError extends Error {
  readonly code = 'ESANDBOXUNSERVED';
  readonly errno = -1;
  readonly method: string;
  readonly host: string;
  readonly path: string;

  constructor(method: string, url: URL, hint?: string) {
    super(
      `the sandbox does not serve ${method} ${url.protocol}//${url.host}${url.pathname}: ` +
        `${hint ?? `no sandbox cloud answers at ${url.host}`} (the sandbox has no network)`,
    );
    this.name = 'SandboxUnservedRequestError';
    this.method = method;
    this.host = url.host;
    this.path = url.pathname;
  }
}

/** Why a host is not served, when the sandbox can say more than "no cloud there" (an EC2 region it does not emulate). */
export type UnservedHint = (url: URL) => string | undefined;

/**
 * msw's `onUnhandledRequest` for a sealed sandbox: refuses what no handler claimed. (Thrown from a handler instead,
 * msw would also print the error's stack on the console, which a CLI user must not see.)
 */
export function refuseUnserved(hint: UnservedHint = () => undefined): (request: Request) => never {
  return (request) => {
    const url = new URL(request.url);
    throw new SandboxUnservedRequestError(request.method, url, hint(url));
  };
}
