// `kubeplane ssh-key | metadata`: a cluster's outputs beside its kubeconfig, as Claudie's guide reads them from its
// metadata Secret: the SSH key of its machines (OpenSSH format) and the metadata JSON (docs/outputs.md).
import { parseCommandArgs } from '../command-args.js';
import { UsageError, type CliIo } from '../io.js';
import { writeSecretDocument } from '../secret-output.js';
import { findCluster, withRuntime } from './engine.js';

const options = {
  sandbox: { type: 'boolean' },
  'state-dir': { type: 'string' },
  project: { type: 'string' },
  out: { type: 'string' },
} as const;

/** The one cluster argument and the options both commands share. */
function parse(argv: string[], command: string) {
  const { values, positionals } = parseCommandArgs({ args: argv, allowPositionals: true, options });
  if (values.out === '') throw new UsageError('--out needs a file name');
  if (positionals.length !== 1) throw new UsageError(`${command} needs a cluster name`);
  return { cluster: positionals[0] as string, values };
}

export async function sshKey(argv: string[], io: CliIo): Promise<number> {
  const { cluster, values } = parse(argv, 'ssh-key');
  return withRuntime(io, values, false, 'ssh-key', async (rt) => {
    const owner = await findCluster(rt.kubeplane, cluster, values.project);
    await writeSecretDocument(io, (await rt.kubeplane.sshKey(owner.project, owner.name)).reveal(), values.out);
    return 0;
  });
}

export async function metadata(argv: string[], io: CliIo): Promise<number> {
  const { cluster, values } = parse(argv, 'metadata');
  return withRuntime(io, values, false, 'metadata', async (rt) => {
    const owner = await findCluster(rt.kubeplane, cluster, values.project);
    const value = await rt.kubeplane.metadata(owner.project, owner.name);
    await writeSecretDocument(io, `${JSON.stringify(value.reveal(), null, 2)}\n`, values.out);
    return 0;
  });
}
