// Whether a test left this process's HTTP intercepted: a sandbox (msw) still listening after its test ended.

/**
 * Whether this process's HTTP is still intercepted after a command returned: a sandbox a command opened and did not
 * close answers, or refuses, every request of the process from then on (in-process tests share it). Asks a server on
 * 127.0.0.1 that no sandbox serves.
 */
export async function httpLeftIntercepted(): Promise<string | null> {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => res.end('direct'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    const body = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    return body === 'direct' ? null : `answered ${JSON.stringify(body.slice(0, 200))}`;
  } catch (e) {
    return (e as Error).message;
  } finally {
    server.close();
  }
}
