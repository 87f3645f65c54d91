// `kubeplane autoscaler-adapter serve`: the cluster-autoscaler externalgrpc adapter as a long-running server, until
// SIGINT or SIGTERM. Its node groups are one cluster's autoscaled pools, read and scaled through the serverless API
// (--api-url, requests signed with SigV4 from the AWS credentials of the environment) or through the local runtime
// (the state directory, whose writer lock it then holds and whose queue it runs after each change). When the cluster's
// cluster_autoscaler add-on names config.adapterAddress, it serves mutual TLS with a certificate from the cluster's
// autoscaler CA for that address's host (docs/autoscaling.md).
import { createHash, createHmac } from 'node:crypto';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../command-args.js';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { httpBackend, localBackend, type ScalingBackend } from '../../autoscaler/backend.js';
import { serveAutoscalerAdapter } from '../../autoscaler/server.js';
import type { AdapterServingTls } from '@kubeplane/sdk';
import { DEFAULT_ADAPTER_LISTEN } from './command-help.js';
import { println, UsageError, type CliIo } from '../io.js';
import { EXIT } from '../io.js';

const bytes = (d: string | ArrayBuffer | ArrayBufferView): string | Uint8Array =>
  typeof d === 'string' ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength);

/** SHA-256 for SignatureV4 from node:crypto (a keyed one is HMAC), so no extra hashing package is needed. */
class NodeSha256 {
  readonly #hash: ReturnType<typeof createHash> | ReturnType<typeof createHmac>;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.#hash.digest()));
  }
  reset(): void {}
}

/** fetch with SigV4 (service `lambda` for a function URL, `execute-api` for an HTTP API route), as IAM auth wants. */
function signedFetch(apiUrl: string, region: string): typeof fetch {
  const service = /\.lambda-url\./.test(new URL(apiUrl).hostname) ? 'lambda' : 'execute-api';
  const signer = new SignatureV4({ service, region, credentials: defaultProvider(), sha256: NodeSha256 });
  return async (input, init) => {
    const url = new URL(String(input));
    const body = init?.body === undefined || init.body === null ? undefined : String(init.body);
    const signed = await signer.sign({
      method: init?.method ?? 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { host: url.host, 'content-type': 'application/json' },
      ...(body !== undefined ? { body } : {}),
    });
    return fetch(url, { method: signed.method, headers: signed.headers, ...(body !== undefined ? { body } : {}) });
  };
}

/** `stop` replaces the process signals (tests). */
export async function autoscalerAdapter(argv: string[], io: CliIo, stop?: Promise<unknown>): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      cluster: { type: 'string' },
      listen: { type: 'string' },
      'api-url': { type: 'string' },
      region: { type: 'string' },
      'state-dir': { type: 'string' },
      sandbox: { type: 'boolean' },
    },
  });
  if (positionals[0] !== 'serve' || positionals.length > 1)
    throw new UsageError(`autoscaler-adapter takes one command, serve (got ${positionals.join(' ') || 'none'})`);
  const project = values.project;
  const cluster = values.cluster;
  if (!project || !cluster) throw new UsageError('--project and --cluster are required');
  const apiUrl = values['api-url'];
  if (apiUrl && (values['state-dir'] || values.sandbox))
    throw new UsageError('--api-url scales through the serverless API; --state-dir and --sandbox are for the local runtime, not both');
  if (values.listen !== undefined && !/^[^\s]+:\d{1,5}$/.test(values.listen)) throw new UsageError(`--listen takes HOST:PORT, not ${values.listen}`);

  let runtime: LocalRuntime | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopping = false;
  let backend: ScalingBackend;
  if (apiUrl) {
    const region = values.region ?? io.env.AWS_REGION ?? io.env.AWS_DEFAULT_REGION;
    if (!region) throw new UsageError('--region (or AWS_REGION) is needed to sign requests to the API');
    backend = httpBackend({ apiUrl, project, cluster, fetch: signedFetch(apiUrl, region) });
  } else {
    const stateDir = resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR);
    runtime = await LocalRuntime.open({
      stateDir,
      sandbox: values.sandbox ?? false,
      env: io.env,
      cwd: io.cwd,
      write: true,
      command: 'kubeplane autoscaler-adapter serve',
    });
    const local = localBackend(runtime.kubeplane, project, cluster);
    const rt = runtime;
    // The local runtime has no queue worker of its own: the adapter runs the flow a scaling started, one at a time.
    // On stop it finishes the step in hand and waits for it before the runtime closes (as apply does on Ctrl-C): a flow
    // left running would write state after the lock is released, and send its clouds' requests after the sandbox closed
    // to whatever answers next in this process. The rest runs at the next scaling, or the next apply.
    backend = {
      ...local,
      async scalePool(pool, target, removeNodes) {
        await local.scalePool(pool, target, removeNodes);
        running = running
          .then(() => (stopping ? undefined : rt.kubeplane.run({ beforeMessage: () => stopping })))
          .catch((e: unknown) => println(io.stderr, `[autoscaler-adapter] running the flow failed: ${(e as Error).message}`));
      },
    };
  }
  // An adapter the cluster reaches at its add-on's config.adapterAddress: mutual TLS with the cluster's autoscaler CA,
  // listening on that address's port unless told otherwise.
  let serving: AdapterServingTls | null = null;
  try {
    serving = runtime ? await runtime.kubeplane.autoscalerAdapterTls(project, cluster) : null;
  } catch (e) {
    await runtime?.close();
    throw e;
  }
  const listen = values.listen ?? (serving ? `0.0.0.0:${serving.port}` : DEFAULT_ADAPTER_LISTEN);
  const adapter = await serveAutoscalerAdapter({
    backend,
    listen,
    ...(runtime ? { now: () => runtime.clock.now() } : {}),
    ...(serving ? { tls: { caCertificate: serving.caCertificate, certificate: serving.certificate, key: serving.key.reveal() } } : {}),
  });
  println(
    io.stdout,
    `[autoscaler-adapter] serving the externalgrpc CloudProvider for ${backend.describe} on ${adapter.address}` +
      `${serving ? ` (mutual TLS, certificate for ${serving.host})` : ''}; Ctrl-C to stop`,
  );
  try {
    await (stop ??
      new Promise<void>((done) => {
        process.once('SIGINT', () => done());
        process.once('SIGTERM', () => done());
      }));
  } finally {
    stopping = true;
    await adapter.close();
    await running;
    await runtime?.close();
  }
  println(io.stdout, '[autoscaler-adapter] stopped');
  return EXIT.ok;
}
