// The help of every command, apart from the commands themselves: `kubeplane --help`, `kubeplane help <command>` and the
// completion scripts read it without loading any command, so they start fast (each command loads when it runs).
import { OPTIONS, type CommandHelp } from '../help.js';

const validateUsage = 'kubeplane validate <manifest.yaml|json|->... [--json]';

export const validateHelp: CommandHelp = {
  name: 'validate',
  usage: [validateUsage],
  summary: 'check manifests; one line per problem, file:line path: message',
  description: 'Exit 0 when every file is valid (warnings are printed), 1 otherwise. - reads a manifest from standard input. Nothing is touched.',
  options: [['--json', 'print one {"type":"result"} line with the issues of every file (docs/cli.md)']],
};

const planUsage = 'kubeplane plan <manifest> [--json] [--sandbox] [--state-dir DIR]';

export const planHelp: CommandHelp = {
  name: 'plan',
  usage: [planUsage],
  summary: 'show what apply would change, and why',
  description: 'Against the state in the state directory (empty when there is none); nothing is changed.',
  options: [OPTIONS.json, OPTIONS.sandbox, OPTIONS.stateDir],
};

const applyUsage =
  'kubeplane apply <manifest> [--reconcile] [--sandbox [--netns] [--without-dns-zones] [--aws-opt-in-regions R,…] [--sandbox-date YYYY-MM-DD] ' +
  '[--user-data-transform MODULE]] ' +
  '[--secrets-context NAME [--secrets-kubeconfig FILE]] ' +
  '[--state-dir DIR] [--json] [-v]';
const destroyUsage =
  'kubeplane destroy <manifest|project|cluster> [--yes] [--sandbox] [--secrets-context NAME [--secrets-kubeconfig FILE]] [--state-dir DIR] [--json] [-v]';
const statusUsage = 'kubeplane status [project] [--sandbox] [--state-dir DIR] [--json]';
const kubeconfigUsage = 'kubeplane kubeconfig <cluster> [--project P] [--sandbox] [--state-dir DIR] [--out FILE]';

export const applyHelp: CommandHelp = {
  name: 'apply',
  usage: [applyUsage],
  summary: 'create or update the clusters of a manifest, showing progress',
  description:
    "Checks the manifest, the credentials and the providers' catalogs before anything is recorded, then " +
    'runs every step to the end in this process. The first Ctrl-C finishes the step in hand and exits 130.',
  options: [
    ['--reconcile', "run every cluster's flow again even if the manifest did not change, to repair drift"],
    OPTIONS.sandbox,
    ['--netns', 'with --sandbox: boot the machines in network namespaces with real WireGuard, nginx and etcd'],
    ['--without-dns-zones', "with --sandbox: leave the manifest's DNS zones out of the sandbox accounts"],
    ['--aws-opt-in-regions R,…', "with --sandbox, when the world is made: enable these opt-in Regions in the sandbox's AWS account"],
    [
      '--sandbox-date YYYY-MM-DD',
      'with --sandbox, when the world is made: the day its clock starts (default 2026-01-01), which decides what the catalogs sell',
    ],
    ['--user-data-transform MODULE', "with --sandbox: an ES module whose default export changes each machine's files before it boots"],
    OPTIONS.secretsContext,
    OPTIONS.secretsKubeconfig,
    OPTIONS.stateDir,
    OPTIONS.json,
    OPTIONS.verbose,
  ],
};

export const destroyHelp: CommandHelp = {
  name: 'destroy',
  usage: [destroyUsage],
  summary: 'delete every cluster of a manifest or project, from any state',
  description:
    'A cluster name deletes that cluster alone. A project sweeps, by their tags, ' +
    'clusters whose records were lost, from the manifest it last applied; a manifest ' +
    'file sweeps its clusters whatever the state directory holds. Exits 0 only when ' +
    'nothing of them is left; on real clouds it asks for confirmation on a terminal.',
  options: [
    ['--yes', 'on real clouds: delete without asking (for scripts; without a terminal destroy refuses to run without it)'],
    OPTIONS.sandbox,
    OPTIONS.secretsContext,
    OPTIONS.secretsKubeconfig,
    OPTIONS.stateDir,
    OPTIONS.json,
    OPTIONS.verbose,
  ],
};

export const statusHelp: CommandHelp = {
  name: 'status',
  usage: [statusUsage],
  summary: 'the state of each project and cluster, as Claudie reports it',
  description: 'Every project in the state directory, or the ones named; docs/workflow.md explains each state.',
  options: [OPTIONS.sandbox, OPTIONS.stateDir, OPTIONS.json],
};

export const kubeconfigHelp: CommandHelp = {
  name: 'kubeconfig',
  usage: [kubeconfigUsage, 'kubeplane kubeconfig <cluster> --sandbox (--served | --server URL) [--project P] [--state-dir DIR] [--out FILE]'],
  summary: "print a cluster's admin kubeconfig",
  description:
    "It holds the cluster's admin credentials: when standard output is a file (kubeconfig " +
    '> file) that file is made private (0600) before anything is written to it.',
  options: [
    ['--project P', 'the project of the cluster, when clusters of that name exist in several'],
    OPTIONS.sandbox,
    OPTIONS.stateDir,
    ['--out FILE', 'write the kubeconfig to FILE (created or replaced, mode 0600) instead of standard output'],
    ['--served', 'with --sandbox: point it at the port kubeplane sandbox serve serves the cluster on'],
    ['--server URL', 'with --sandbox: point it at https://127.0.0.1:PORT'],
  ],
};

const sshKeyUsage = 'kubeplane ssh-key <cluster> [--project P] [--sandbox] [--state-dir DIR] [--out FILE]';
const metadataUsage = 'kubeplane metadata <cluster> [--project P] [--sandbox] [--state-dir DIR] [--out FILE]';

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

const renderUsage = 'kubeplane render <manifest> --out <dir> [--api-host <ip>]';

export const renderHelp: CommandHelp = {
  name: 'render',
  usage: [renderUsage],
  summary: 'write what every node would run, with its secrets (0600)',
  description: 'User-data, kubeadm, WireGuard and load balancer configuration of every self-managed cluster, with freshly generated keys; nothing is created.',
  options: [
    ['--out <dir>', 'the folder to write into, one subfolder per cluster'],
    ['--api-host <ip>', 'the API address, needed when the cluster serves its API on a reserved IP not yet reserved'],
  ],
};

// MANIFEST_FORMATS, written out so that help loads no schema (command-help.test.ts holds them equal).
const schemaUsage = 'kubeplane schema [--format native|claudie] [--out <file>]';

export const schemaHelp: CommandHelp = {
  name: 'schema',
  usage: [schemaUsage],
  summary: 'print the JSON Schema of native or Claudie manifests, for editors',
  description: 'docs/manifest.md says how to point an editor at it.',
  options: [
    ['--format native|claudie', 'native: kubeplane.dev/v1 Manifest (default); claudie: claudie.io/v1beta1 InputManifest'],
    ['--out <file>', 'write it to a file instead of standard output'],
  ],
};

/** cluster-autoscaler's externalgrpc examples serve on 8086 (cluster-autoscaler/cloudprovider/externalgrpc/examples). */
export const DEFAULT_ADAPTER_LISTEN = '0.0.0.0:8086';

export const autoscalerAdapterHelp: CommandHelp = {
  name: 'autoscaler-adapter',
  usage: ['kubeplane autoscaler-adapter serve --project P --cluster C [--listen HOST:PORT] [--api-url URL | --state-dir DIR [--sandbox]]'],
  summary: "serve cluster-autoscaler's externalgrpc cloud provider for a cluster's autoscaled pools until Ctrl-C",
  description:
    'Node groups are the autoscaled pools (id = pool name). With --api-url it scales through the ' +
    "serverless API (SigV4, the environment's AWS credentials); without, through the local state directory, and when " +
    "the cluster's cluster_autoscaler add-on names config.adapterAddress, over mutual TLS with the cluster's autoscaler " +
    "CA on that address's port (the cluster's autoscaler dials it there).",
  options: [
    ['--project P', "the project (the manifest's metadata.name)"],
    ['--cluster C', 'the cluster whose autoscaled pools are the node groups'],
    [
      '--listen HOST:PORT',
      `where the gRPC server listens (default ${DEFAULT_ADAPTER_LISTEN}, or 0.0.0.0 and the port of config.adapterAddress; port 0: any free port)`,
    ],
    ['--api-url URL', "kubeplane's serverless API (its function URL or HTTP API stage URL)"],
    ['--region R', "the API's AWS region for SigV4 (default: AWS_REGION)"],
    OPTIONS.stateDir,
    OPTIONS.sandbox,
  ],
};

export const completionHelp: CommandHelp = {
  name: 'completion',
  usage: ['kubeplane completion bash|zsh'],
  summary: 'print a shell completion script of the commands and their options, for bash or zsh',
  description:
    'Load it with `source <(kubeplane completion bash)` (zsh: after compinit), or save it where the shell looks: ' +
    '~/.local/share/bash-completion/completions/kubeplane, or a file _kubeplane in a folder of $fpath.',
  options: [],
};

const lifecycleUsage =
  'kubeplane sandbox lifecycle <manifest> [--netns] [--seed N] [--without-dns-zones] [--aws-opt-in-regions R,…] [--sandbox-date YYYY-MM-DD] ' +
  '[--user-data-transform MODULE] [--json] [-v]';

export const lifecycleHelp: CommandHelp = {
  name: 'sandbox lifecycle',
  usage: [lifecycleUsage],
  summary: 'create, scale, add and remove a pool, upgrade and destroy on the sandbox clouds',
  description: 'In memory and in virtual time; ends with the resources left in the sandbox clouds. Exit 0 only if every stage passed and nothing is left.',
  options: [
    ['--netns', 'boot the machines in network namespaces with real WireGuard, nginx, etcd and TLS'],
    ['--seed N', "the seed of the sandbox's randomness and faults (default 1)"],
    ['--without-dns-zones', "leave the manifest's DNS zones out of the sandbox accounts, to see the refusal"],
    ['--aws-opt-in-regions R,…', "enable these opt-in Regions (eu-central-2, …) in the sandbox's AWS account, which has none, as a new account"],
    ['--sandbox-date YYYY-MM-DD', "the day the sandbox's clock starts (default 2026-01-01): a type past its deprecation date that day is not sold"],
    [
      '--user-data-transform MODULE',
      "an ES module whose default export (machine, files) => files changes each machine's user-data files before it boots (docs/netns.md)",
    ],
    OPTIONS.json,
    OPTIONS.verbose,
  ],
};

const serveUsage = 'kubeplane sandbox serve [--state-dir DIR] [--speed N] [--port-base P]';
/** The first port `kubeplane sandbox serve` serves on. */
export const DEFAULT_PORT_BASE = 7400;

export const serveHelp: CommandHelp = {
  name: 'sandbox serve',
  usage: [serveUsage],
  summary: 'serve the sandbox world to real clients (AWS CLI, hcloud, kubectl) until Ctrl-C',
  description: "Holds the state directory's writer lock while it runs and saves the world as it changes and when it stops.",
  options: [
    OPTIONS.stateDir,
    ['--speed N', 'virtual seconds per real second (1: real time, 60: a minute a second, 0: stopped)'],
    ['--port-base P', `the first of the local ports (default ${DEFAULT_PORT_BASE}; 0: any free ports)`],
  ],
};
