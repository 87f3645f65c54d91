// `kubeplane kubeconfig <cluster> --sandbox --served | --server URL`: the admin kubeconfig of a sandbox cluster,
// pointed at `kubeplane sandbox serve`'s local port for it, with the CA, client certificate and server name kept.
import { parseCommandArgs } from '../command-args.js';
import { resolve } from 'node:path';
import { parseKubeconfig } from '@kubeplane/providers';
import { DEFAULT_STATE_DIR, LocalRuntime } from '../../runtime/local.js';
import { readServedFile, servedClusterHost as hostOf, servedKubeconfig } from '@kubeplane/sandbox';
import { UsageError, type CliIo } from '../io.js';
import { writeSecretDocument } from '../secret-output.js';
import { findCluster } from './engine.js';

export async function kubeconfigServed(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args: argv,
    allowPositionals: true,
    options: {
      sandbox: { type: 'boolean' },
      served: { type: 'boolean' },
      server: { type: 'string' },
      project: { type: 'string' },
      'state-dir': { type: 'string' },
      out: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('kubeconfig needs a cluster name');
  if (values.out === '') throw new UsageError('--out needs a file name');
  if (!values.sandbox) throw new UsageError('--served and --server are for sandbox clusters: add --sandbox');
  if (values.server !== undefined && !/^https:\/\/127\.0\.0\.1:\d+$/.test(values.server))
    throw new UsageError('--server must be https://127.0.0.1:<port>, where kubeplane sandbox serve serves the cluster');
  const cluster = positionals[0] as string;
  const stateDir = resolve(io.cwd, values['state-dir'] ?? DEFAULT_STATE_DIR);
  const rt = await LocalRuntime.open({ stateDir, sandbox: true, env: io.env, cwd: io.cwd, write: false, command: 'kubeconfig' });
  try {
    const kp = rt.kubeplane;
    const owner = await findCluster(kp, cluster, values.project);
    const admin = await kp.kubeconfig(owner.project, owner.name);
    const endpoint = new URL(parseKubeconfig(admin).server).host;
    let server = values.server;
    if (server === undefined) {
      const served = (await readServedFile(stateDir)).clusters.find((c) => c.endpoint === endpoint);
      if (!served)
        throw new UsageError(
          `the sandbox server does not serve ${cluster} (${endpoint}); it serves the clusters whose API answered when it started — restart it`,
        );
      server = served.url;
    }
    await writeSecretDocument(io, servedKubeconfig(admin, server, hostOf(endpoint)).reveal(), values.out);
    return 0;
  } finally {
    await rt.close();
  }
}
