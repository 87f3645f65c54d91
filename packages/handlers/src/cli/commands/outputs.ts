// `kubeplane ssh-key | metadata`: a cluster's outputs beside its kubeconfig, as Claudie's guide reads them from its
// metadata Secret: the SSH key of its machines (OpenSSH format) and the metadata JSON (docs/outputs.md).
import { parseCommandArgs } from '../command-args.js';
import { OPTIONS, type CommandHelp } from '../help.js';
import { UsageError, type CliIo } from '../io.js';
import { writeSecretDocument } from '../secret-output.js';
import { findCluster, withRuntime } from './engine.js';

export const sshKeyUsage = 'kubeplane ssh-key <cluster> [--project P] [--sandbox] [--state-dir DIR] [--out FILE]';
export const metadataUsage = 'kubeplane metadata <cluster> [--project P] [--sandbox] [--state-dir DIR] [--out FILE]';

const outputOptions = (what: string): Array<readonly [string, string]> => [
  ['--project P', 'the project of the cluster, when clusters of that name exist in several'],
  OPTIONS.sandbox,
  OPTIONS.stateDir,
  ['--out FILE', `write ${what} to FILE (created or replaced, mode 0600) instead of standard output`],
];

export const sshKeyHelp: CommandHelp = {
  name: 'ssh-key',
  usage: [sshKeyUsage],
  summary: "print the private SSH key of a cluster's machines (OpenSSH format)",
  description:
    'The key `ssh -i` and `ssh-keygen -y` read, for the nodes the metadata lists (docs/outputs.md); there from the ' +
    "cluster's first step on. When standard output is a file (ssh-key > file) that file is made 0600 before " +
    'anything is written to it.',
  options: outputOptions('the key'),
};

export const metadataHelp: CommandHelp = {
  name: 'metadata',
  usage: [metadataUsage],
  summary: "print a cluster's metadata: node addresses by pool, and the SSH key (Claudie's shape)",
  description:
    "JSON in the shape Claudie's guide reads with jq (.cluster_private_key, .dynamic_nodepools.node_ips; " +
    'docs/outputs.md). It holds the private key: standard output that is a file is made 0600 first.',
  options: outputOptions('the metadata'),
};

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
