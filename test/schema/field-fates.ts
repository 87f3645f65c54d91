// The fate of every manifest field (test/schema/schema-fields.ts names them): the effect it has and the tests that
// prove it (a file and the exact title of a test in it), or the validation warning that answers it, with an edit of an
// example that makes validation say it. field-fates.test.ts checks both kinds and that no field is left without one.

export interface Proof {
  /** From the repository's root. */
  file: string;
  /** The exact title of an it()/test() in that file. */
  test: string;
}

export interface WarnExample {
  /** A manifest from the repository's root to edit. */
  file: string;
  /** Changes its parsed document (Claudie's under `spec`) so that the field is written. */
  edit: (doc: Doc) => void;
  /** The path, without Claudie's `spec.` prefix. */
  at: string;
}

export type Fate = { effect: string; proof: Proof[] } | { warns: { why: string; example: WarnExample; severity?: 'warning' | 'error'; says?: string } };

type Doc = Record<string, unknown>;

/** The mapping at a dotted path of a parsed document (numbers index lists), made when missing. */
export function at(doc: Doc, path: string): Doc {
  let node: Doc = doc;
  for (const key of path.split('.')) {
    const next = (node as Record<string, unknown>)[key];
    if (next === undefined || next === null) (node as Record<string, unknown>)[key] = {};
    node = (node as Record<string, unknown>)[key] as Doc;
  }
  return node;
}

const DOCUMENTED_MANIFESTS = 'test/corpus/documented-manifests.e2e.test.ts';
const HYBRID = 'test/lifecycle/hybrid.test.ts';
const NODE_IDENTITY = 'test/lifecycle/node-identity.test.ts';
const CMK = 'test/lifecycle/crusoe-cmk.test.ts';
const ENGINE_CLI = 'packages/handlers/src/cli/commands/engine.test.ts';
const STATIC_ACCESS = 'test/lifecycle/static-access.test.ts';
const STATIC_ACCESS_REACHES =
  "reaches each machine on the pool's sshPort as the node's username, and the static nodes carry the pool's labels, annotations and taints";
const CLAUDIE_EXAMPLE = 'examples/claudie-bursting.yaml';
const NATIVE_EXAMPLE = 'examples/minimal.yaml';

const proofs = (...list: Array<[string, string]>): Proof[] => list.map(([file, test]) => ({ file, test }));

export const FIELD_FATES: Record<string, Fate> = {
  // The document.
  $schema: {
    effect: "names the document's JSON Schema for editors; validate accepts it and reads nothing else from it",
    proof: proofs(['packages/sdk/src/manifest/json-schema.test.ts', 'lets a native document name its JSON Schema in $schema, as editors read it']),
  },
  apiVersion: {
    effect: 'chooses the document kind: native fields at the top, or Claudie InputManifest fields under spec',
    proof: proofs(
      ['packages/sdk/src/manifest/validate.test.ts', 'parses Claudie and native documents of the same cluster to the same model'],
      [DOCUMENTED_MANIFESTS, '%s: through sandbox lifecycle to its expected end'],
    ),
  },
  kind: {
    effect: 'with apiVersion, the document kind; another Claudie kind beside a manifest is named and skipped',
    proof: proofs(['packages/sdk/src/manifest/claudie-acceptance.test.ts', 'says in one line what a Claudie TemplateGitReference is and what kubeplane reads']),
  },
  'metadata.name': {
    effect: 'the project: state, resource names and tags, the name the CLI and SDK address it by',
    proof: proofs(
      [ENGINE_CLI, 'destroys one cluster by name, and applying the manifest again brings it back'],
      ['test/lifecycle/engine-promises.test.ts', 'applies a project named with 253 characters on the file-backed stores, to DONE'],
    ),
  },
  'metadata.namespace': {
    warns: {
      why: "Claudie's project is <namespace>-<name>; kubeplane's is the name alone",
      example: { file: CLAUDIE_EXAMPLE, edit: (d) => void (at(d, 'metadata').namespace = 'team-a'), at: 'metadata.namespace' },
      says: 'the namespace is not part of the project',
    },
  },
  'metadata.labels': {
    warns: {
      why: 'labels of the manifest object (the InputManifest resource in Claudie), put on nothing',
      example: { file: NATIVE_EXAMPLE, edit: (d) => void (at(d, 'metadata').labels = { team: 'a' }), at: 'metadata.labels' },
      says: 'put on nothing kubeplane makes',
    },
  },
  'metadata.annotations': {
    warns: {
      why: 'annotations of the manifest object, put on nothing',
      example: { file: CLAUDIE_EXAMPLE, edit: (d) => void (at(d, 'metadata').annotations = { owner: 'a' }), at: 'metadata.annotations' },
      says: 'put on nothing kubeplane makes',
    },
  },
  status: {
    warns: {
      why: "written by Claudie's operator; nothing in it is read",
      example: { file: CLAUDIE_EXAMPLE, edit: (d) => void (d.status = { state: 'DONE' }), at: 'status' },
      says: 'kubeplane reads nothing from it',
    },
  },

  // Providers.
  'providers[].name': {
    effect: "the provider's identity: pools, DNS and add-ons refer to it; each project's provider has its own credentials",
    proof: proofs(['test/lifecycle/day-two.test.ts', 'gives two projects that both name a provider "hetzner-1" a provider each, with their own credentials']),
  },
  'providers[].providerType': {
    effect: "the cloud: which provider makes the machines, its credentials and its nodes' identity",
    proof: proofs([NODE_IDENTITY, "gives AWS Nodes aws:///<zone>/<instance id> with the region, the instance's zone and type, and Hetzner Nodes theirs"]),
  },
  'secretRef.name': {
    effect: "Claudie's form: the credential keys read from a Kubernetes Secret in the cluster a kubeconfig context names",
    proof: proofs(
      ['packages/handlers/src/cli/commands/secrets-context.test.ts', "hands the cloud the token read from the Secret: Hetzner's catalogs answer it"],
      ['packages/handlers/src/cli/commands/secrets-context.test.ts', 'with --sandbox and a context, builds the cluster once the Secret reads'],
      ['packages/handlers/src/cli/commands/secrets-context.test.ts', 'refuses a Kubernetes Secret without a context, rather than read the current one'],
    ),
  },
  'secretRef.namespace': {
    effect: 'the namespace of that Secret',
    proof: proofs([
      'packages/handlers/src/cli/commands/secrets-context.test.ts',
      'names the Secret the named cluster does not hold, with the file and line of the secretRef, and records nothing',
    ]),
  },
  'providers[].templates.repository': {
    warns: {
      why: "Claudie's template repositories: kubeplane renders its own machines",
      example: {
        file: CLAUDIE_EXAMPLE,
        edit: (d) => void (at(d, 'spec.providers.0.templates').repository = 'https://github.com/berops/claudie-config'),
        at: 'providers[0].templates',
      },
      says: 'templates is not used',
    },
  },
  'providers[].templates.path': {
    warns: {
      why: "Claudie's template repositories: kubeplane renders its own machines",
      example: {
        file: CLAUDIE_EXAMPLE,
        edit: (d) =>
          void Object.assign(at(d, 'spec.providers.0.templates'), {
            repository: 'https://github.com/berops/claudie-config',
            path: 'templates/terraformer/aws',
          }),
        at: 'providers[0].templates',
      },
      says: 'templates is not used',
    },
  },
  'providers[].templates.tag': {
    warns: {
      why: "Claudie's template repositories: kubeplane renders its own machines",
      example: {
        file: CLAUDIE_EXAMPLE,
        edit: (d) => void Object.assign(at(d, 'spec.providers.0.templates'), { repository: 'https://github.com/berops/claudie-config', tag: 'v0.9.8' }),
        at: 'providers[0].templates',
      },
      says: 'templates is not used',
    },
  },
  'providers[].templatesRef.name': {
    warns: {
      why: "Claudie's template repositories: kubeplane renders its own machines",
      example: { file: CLAUDIE_EXAMPLE, edit: (d) => void (at(d, 'spec.providers.0.templatesRef').name = 'pinned'), at: 'providers[0].templatesRef' },
      says: 'templatesRef is not used',
    },
  },
  'providers[].templatesRef.namespace': {
    warns: {
      why: "Claudie's template repositories: kubeplane renders its own machines",
      example: {
        file: CLAUDIE_EXAMPLE,
        edit: (d) => void Object.assign(at(d, 'spec.providers.0.templatesRef'), { name: 'pinned', namespace: 'claudie' }),
        at: 'providers[0].templatesRef',
      },
      says: 'templatesRef is not used',
    },
  },
  'secretRef.env': {
    effect: 'credential keys read from environment variables by the local runtime',
    proof: proofs([
      'packages/handlers/src/cli/conventions.test.ts',
      "apply with HCLOUD_TOKEN unset names the provider, the variable and the secretRef's line, and records no project",
    ]),
  },
  'secretRef.file': {
    effect: 'credential keys read from a YAML or JSON file by the local runtime',
    proof: proofs(
      ['packages/handlers/src/cli/conventions.test.ts', "a credentials file that cannot be read is named, with its secretRef's path"],
      ['packages/handlers/src/runtime/credentials.test.ts', 'takes a role alone for AWS, with its external id'],
    ),
  },
  'secretRef.awsSecretsManager.secretId': {
    effect: "the AWS runtime reads the credential keys with GetSecretValue, under the project's prefix only",
    proof: proofs([
      'test/serverless/runtime-roles.e2e.test.ts',
      'ran as a deploy would: the project applied, repaired, destroyed, made again, poisoned, and destroyed',
    ]),
  },
  'secretRef.awsSecretsManager.region': {
    effect: "the Region whose Secrets Manager holds the secret (the function's own without one)",
    proof: proofs(
      ['packages/handlers/src/aws/runtime-secret-region.test.ts', "reads a secret in another Region from that Region's Secrets Manager, not the function's"],
      ['packages/handlers/src/aws/runtime-secret-region.test.ts', "reads a secret whose reference names no Region from the function's own Region"],
    ),
  },
  'secretRef.gcpSecretManager.secret': {
    effect: "the Google Cloud runtime reads the secret's JSON of credential keys",
    proof: proofs(['packages/handlers/src/gcp/runtime.test.ts', 'reads the JSON object of credential keys, each value redacted']),
  },
  'secretRef.gcpSecretManager.version': {
    effect: 'the version of the secret read (latest unless named)',
    proof: proofs([
      'packages/sdk/src/manifest/gcp-secret-name.test.ts',
      "names the one version a runtime reads: latest in the runtime's project unless the reference says otherwise",
    ]),
  },
  'secretRef.gcpSecretManager.project': {
    effect: "the project holding the secret; another project than the runtime's own is refused",
    proof: proofs(['packages/handlers/src/gcp/api-handler.test.ts', 'refuses a manifest whose provider credentials are %s']),
  },

  // Dynamic pools.
  'nodePools.dynamic[].name': {
    effect: "the pool's identity: node names, the kubeplane.dev/pool label, references from clusters and load balancers",
    proof: proofs([NODE_IDENTITY, 'gives every Node hcloud://<server id>, the location as region, its data center as zone and the server type']),
  },
  'nodePools.dynamic[].providerSpec.name': {
    effect: "which provider makes the pool's machines",
    proof: proofs([NODE_IDENTITY, "gives AWS Nodes aws:///<zone>/<instance id> with the region, the instance's zone and type, and Hetzner Nodes theirs"]),
  },
  'nodePools.dynamic[].providerSpec.region': {
    effect: "the machines' region, with a network, key and firewall per region",
    proof: proofs(
      [
        'test/lifecycle/multi-region.test.ts',
        'Hetzner fsn1, nbg1 and hel1: one SSH key for the project, kept until the last location goes, nothing left after destroy',
      ],
      ['test/lifecycle/multi-region.test.ts', 'AWS eu-central-1 and eu-west-1: a key pair and a VPC per region, nothing left after destroy'],
    ),
  },
  'nodePools.dynamic[].providerSpec.zone': {
    effect: "the machines' zone, shown in their providerID",
    proof: proofs([NODE_IDENTITY, "gives AWS Nodes aws:///<zone>/<instance id> with the region, the instance's zone and type, and Hetzner Nodes theirs"]),
  },
  'nodePools.dynamic[].providerSpec.externalNetworkName': {
    warns: {
      why: "OpenStack's (refused without it there); no other cloud reads it, and OpenStack pools have no provider yet, which apply says",
      example: {
        file: NATIVE_EXAMPLE,
        edit: (d) => void (at(d, 'nodePools.dynamic.0.providerSpec').externalNetworkName = 'public'),
        at: 'nodePools.dynamic[0].providerSpec.externalNetworkName',
      },
      says: "externalNetworkName is OpenStack's",
    },
  },
  'nodePools.dynamic[].machineSpec.nvidiaGpuCount': {
    effect: "the autoscaler template's GPUs and GPU label where the catalog does not answer",
    proof: proofs([
      'packages/handlers/src/autoscaler/template-fallback.test.ts',
      'makes the template node from machineSpec: cpuCount, memory, nvidiaGpuCount GPUs with the GPU label, and offers nvidiaGpuType',
    ]),
  },
  'nodePools.dynamic[].machineSpec.nvidiaGpuType': {
    effect: 'the GPU type the adapter offers for the template',
    proof: proofs([
      'packages/handlers/src/autoscaler/template-fallback.test.ts',
      'makes the template node from machineSpec: cpuCount, memory, nvidiaGpuCount GPUs with the GPU label, and offers nvidiaGpuType',
    ]),
  },
  'nodePools.dynamic[].machineSpec.nvidiaGpu': {
    effect: "Claudie's deprecated GPU count, read as nvidiaGpuCount",
    proof: proofs(['packages/handlers/src/autoscaler/template-fallback.test.ts', "takes Claudie's deprecated nvidiaGpu as the GPU count"]),
  },
  'nodePools.dynamic[].machineSpec.vram': {
    warns: {
      why: "VastAI's, to match offers (VastAI pools have no provider yet, which apply says); on other clouds the server type decides",
      example: {
        file: NATIVE_EXAMPLE,
        edit: (d) => void (at(d, 'nodePools.dynamic.1').machineSpec = { vram: 24 }),
        at: 'nodePools.dynamic[1].machineSpec.vram',
      },
      says: "vram is VastAI's",
    },
  },
  'nodePools.dynamic[].providerSpec.subnet': {
    effect: 'an existing Crusoe subnet the machines and the managed cluster are put in, never deleted',
    proof: proofs(
      ['test/lifecycle/crusoe-cmk-day-two.test.ts', 'is created in the existing subnet the manifest names, without a VPC of its own'],
      ['test/lifecycle/crusoe-cmk-day-two.test.ts', 'is destroyed: its rules go, the existing subnet and its VPC stay'],
    ),
  },
  'nodePools.dynamic[].count': {
    effect: 'how many machines; a change scales the pool up or down',
    proof: proofs([HYBRID, 'scales a pool up and down, adds and removes a pool, then is destroyed leaving nothing behind']),
  },
  'nodePools.dynamic[].autoscaler.min': {
    effect: "the pool's first size and the autoscaler's lower bound",
    proof: proofs(['test/lifecycle/pool-scaling.test.ts', 'grows an autoscaled pool to the target, and a re-apply of the same manifest keeps it']),
  },
  'nodePools.dynamic[].autoscaler.max': {
    effect: "the autoscaler's upper bound",
    proof: proofs(['test/lifecycle/pool-scaling.test.ts', 'refuses a target outside the limits, a pool with a fixed count and an unknown pool, naming them']),
  },
  'nodePools.dynamic[].serverType': {
    effect: "the machines' type, shown in their instance-type label",
    proof: proofs([NODE_IDENTITY, "gives AWS Nodes aws:///<zone>/<instance id> with the region, the instance's zone and type, and Hetzner Nodes theirs"]),
  },
  'nodePools.dynamic[].image': {
    effect: "the machines' OS image (a CMK pool's node image: a change rotates the machines)",
    proof: proofs(
      [CMK, 'rotates a pool onto a new node image: one machine at a time, each replacement Ready before the old one is drained'],
      [
        'packages/handlers/src/cli/commands/preflight.test.ts',
        'refuses a retired server type, a missing image, zone and location, one line each with file:line and what Hetzner offers, and creates nothing for any cluster',
      ],
    ),
  },
  'nodePools.dynamic[].storageDiskSize': {
    effect: "a storage disk of that size on every compute node, mounted at /opt/claudie/data (Claudie's default 50 in its documents)",
    proof: proofs(
      [
        'test/lifecycle/storage-disk.test.ts',
        'gives every compute node a disk of that size (Claudie default 50 on Hetzner, 200 as an EBS volume) and the control plane none',
      ],
      ['test/lifecycle/storage-disk.test.ts', 'gives a native document no disk where storageDiskSize is absent, and the written one where it is given'],
      [
        'packages/handlers/src/cli/served-sandbox/storage-disk-cli.e2e.test.ts',
        "gives each worker of Claudie's bursting example a 200 GiB gp3 volume at /dev/sdf, deleted with the instance",
      ],
      [
        'test/lifecycle/storage-disk.test.ts',
        "gives each Crusoe VM of a compute pool a data disk of that size (the engine passes it to Crusoe's provider too)",
      ],
    ),
  },
  'nodePools.dynamic[].machineSpec.cpuCount': {
    effect: "the autoscaler template's CPUs where the catalog does not know the type (the catalog wins where it does)",
    proof: proofs(
      ['test/lifecycle/pool-scaling.test.ts', "takes the template's size from the server type, not from a machineSpec that asks for more"],
      [
        'packages/handlers/src/autoscaler/template-fallback.test.ts',
        'makes the template node from machineSpec: cpuCount, memory, nvidiaGpuCount GPUs with the GPU label, and offers nvidiaGpuType',
      ],
    ),
  },
  'nodePools.dynamic[].machineSpec.memory': {
    effect: "the autoscaler template's memory where the catalog does not know the type",
    proof: proofs([
      'packages/handlers/src/autoscaler/template-fallback.test.ts',
      'makes the template node from machineSpec: cpuCount, memory, nvidiaGpuCount GPUs with the GPU label, and offers nvidiaGpuType',
    ]),
  },
  'nodePools.dynamic[].labels': {
    effect: 'labels on every node of the pool, changed in place',
    proof: proofs([NODE_IDENTITY, "gives AWS Nodes aws:///<zone>/<instance id> with the region, the instance's zone and type, and Hetzner Nodes theirs"]),
  },
  'nodePools.dynamic[].annotations': {
    effect: "annotations on every node of the pool, changed and removed in place, others' kept",
    proof: proofs(
      [
        'test/lifecycle/node-annotations.test.ts',
        "are put on every node of the pool, one added later too, with the record of kubeplane's keys, and on no other pool's",
      ],
      ['test/lifecycle/node-annotations.test.ts', 'changes and removes them on the next apply, keeping the annotations others put on the Nodes'],
      [
        'packages/handlers/src/cli/served-sandbox/kubectl-annotations.e2e.test.ts',
        "shows the pool's annotations on its nodes (kubectl get node -o jsonpath='{.metadata.annotations}')",
      ],
    ),
  },
  'nodePools.dynamic[].spot': {
    effect: 'spot machines (EC2 spot instances); refused on clouds whose API cannot ask for one',
    proof: proofs([
      'packages/handlers/src/cli/served-sandbox/aws-cli-spot.e2e.test.ts',
      "describe-instances shows the spot pool's instances as spot with their spot requests, and the on-demand pools' without",
    ]),
  },
  'taints[].timeAdded': {
    warns: {
      why: "Kubernetes' Taint.timeAdded, set by the node controller: accepted from Claudie's CRD and not applied",
      example: {
        file: CLAUDIE_EXAMPLE,
        edit: (d) => void (at(d, 'spec.nodePools.dynamic.1').taints = [{ key: 'a', effect: 'NoSchedule', timeAdded: '2024-05-01T12:00:00Z' }]),
        at: 'nodePools.dynamic[1].taints[0].timeAdded',
      },
    },
  },
  'taints[].key': {
    effect: 'taints on every node of the pool',
    proof: proofs(
      [CMK, 'serves its API with every node Ready, labelled and tainted as the pools say'],
      ['packages/sdk/src/bootstrap/kubeadm.test.ts', 'joins a worker with the pinned CA hash, its own taints and only the labels a kubelet may set'],
    ),
  },
  'taints[].value': {
    effect: 'the taint value',
    proof: proofs([CMK, 'serves its API with every node Ready, labelled and tainted as the pools say']),
  },
  'taints[].effect': {
    effect: 'the taint effect',
    proof: proofs([CMK, 'serves its API with every node Ready, labelled and tainted as the pools say']),
  },

  // Static pools.
  'nodePools.static[].name': {
    effect: "the pool's identity: node names, the kubeplane.dev/pool label",
    proof: proofs([NODE_IDENTITY, 'names static Nodes kubeplane://static/<node> with their provider and pool, and no cloud topology']),
  },
  'nodePools.static[].nodes[].endpoint': {
    effect: 'the machine reached over SSH, bootstrapped and reset',
    proof: proofs(['test/lifecycle/static-pools.e2e.test.ts', 'drains the node it loses, resets its machine over SSH and leaves nothing of kubeplane on it']),
  },

  'nodePools.static[].nodes[].username': {
    effect: 'the SSH user the machine is reached as (sudo when not root)',
    proof: proofs(
      [STATIC_ACCESS, STATIC_ACCESS_REACHES],
      [STATIC_ACCESS, 'fails for a user the machine does not let in: an authentication failure that names the user'],
    ),
  },
  'nodePools.static[].sshPort': {
    effect: 'the port SSH dials',
    proof: proofs(
      [STATIC_ACCESS, STATIC_ACCESS_REACHES],
      [STATIC_ACCESS, "fails on a port the machine's sshd is not on: connection refused, naming the node, user, endpoint and port"],
    ),
  },
  'nodePools.static[].labels': {
    effect: 'labels on every static node of the pool',
    proof: proofs([STATIC_ACCESS, STATIC_ACCESS_REACHES]),
  },
  'nodePools.static[].annotations': {
    effect: 'annotations on every static node of the pool',
    proof: proofs([STATIC_ACCESS, STATIC_ACCESS_REACHES]),
  },

  // Clusters.
  'kubernetes.clusters[].name': {
    effect: "the cluster's identity: node names, kubeconfig, status and destroy address",
    proof: proofs([ENGINE_CLI, 'destroys one cluster by name, and applying the manifest again brings it back']),
  },
  'kubernetes.clusters[].version': {
    effect: 'the Kubernetes version installed, and in-place upgrades',
    proof: proofs([
      'test/lifecycle/claudie-pain-points.test.ts',
      'upgrades in place, control plane first, one node at a time, each drained and back in service before the next',
    ]),
  },
  'kubernetes.clusters[].network': {
    effect: "the overlay network every node's address comes from",
    proof: proofs([
      'test/lifecycle/manifest-effects.test.ts',
      "gives every node an overlay address in the manifest's network: the SDK's current state and each Node's InternalIP",
    ]),
  },
  'kubernetes.clusters[].pools.control': {
    effect: 'the pools whose nodes run the control plane',
    proof: proofs([
      'packages/handlers/src/cli/served-sandbox/kubectl-b.e2e.test.ts',
      'prints the control plane and CoreDNS in cluster-info, from the kubernetes and kube-dns Services',
    ]),
  },
  'kubernetes.clusters[].pools.compute': {
    effect: 'the pools whose nodes join as workers',
    proof: proofs([HYBRID, 'scales a pool up and down, adds and removes a pool, then is destroyed leaving nothing behind']),
  },
  'kubernetes.clusters[].installationProxy.mode': {
    effect: "on, off, or default (only with Hetzner nodes): the proxy written into every machine's user-data",
    proof: proofs(
      ['packages/sdk/src/bootstrap/installation-proxy.test.ts', 'with mode default, only when a Kubernetes node of the cluster is on Hetzner'],
      ['test/lifecycle/installation-proxy.test.ts', 'puts the proxy in every Hetzner machine of a mode default cluster, whose nodes all join'],
    ),
  },
  'kubernetes.clusters[].installationProxy.endpoint': {
    effect: 'the proxy URL apt, containerd and the kubelet use',
    proof: proofs([
      'packages/sdk/src/bootstrap/installation-proxy.test.ts',
      "with mode on, through Claudie's proxy unless an endpoint is given, with Hetzner nodes or without",
    ]),
  },
  'kubernetes.clusters[].installationProxy.noProxy': {
    effect: 'hosts and networks added to NO_PROXY',
    proof: proofs([
      'packages/sdk/src/bootstrap/installation-proxy.test.ts',
      "lists in NO_PROXY Claudie's defaults with the cluster's own ranges, its networks, the API names, the metadata address and the user's",
    ]),
  },
  'kubernetes.clusters[].controlPlane': {
    effect: 'managed: the provider runs the control plane (Crusoe Managed Kubernetes)',
    proof: proofs([CMK, 'is created: Crusoe runs the control plane, kubeplane its network, rules, pools and API name']),
  },
  'kubernetes.clusters[].addons[].name': {
    effect: 'installs the add-on, and uninstalls it when removed from the list',
    proof: proofs([
      'packages/handlers/src/cli/commands/addons-across-commands.test.ts',
      'self-managed: installs, reports, upgrades and uninstalls add-ons as the manifest says',
    ]),
  },
  'kubernetes.clusters[].addons[].version': {
    effect: 'the chart version; a change upgrades the add-on',
    proof: proofs([
      'packages/handlers/src/cli/commands/addons-across-commands.test.ts',
      'self-managed: installs, reports, upgrades and uninstalls add-ons as the manifest says',
    ]),
  },
  'kubernetes.clusters[].addons[].values': {
    effect: "Helm values merged over kubeplane's",
    proof: proofs([
      'packages/sdk/src/engine/steps/addons.test.ts',
      "merges the user's values over kubeplane's and uses a provider's credentials only when told to",
    ]),
  },
  'kubernetes.clusters[].addons[].secretRef.fromProvider': {
    effect: "lets the add-on use a provider's credentials",
    proof: proofs([
      'packages/sdk/src/engine/steps/addons.test.ts',
      "merges the user's values over kubeplane's and uses a provider's credentials only when told to",
    ]),
  },
  'kubernetes.clusters[].addons[].config': {
    effect: "kubeplane's own settings of the add-on (autoclusters remediation, crusoe_csi nfs, cluster_autoscaler apiUrl)",
    proof: proofs(
      [CMK, "keeps CMK's scoped token in cmk-<cluster>, sets the pools' limits on the autoscaler, and the remediation settings"],
      [
        'packages/sdk/src/engine/steps/addons.test.ts',
        "points the cluster's autoscaler at an adapter outside the cluster over mutual TLS, and runs none in it",
      ],
      [
        'packages/handlers/src/cli/commands/autoscaler-adapter.test.ts',
        "serves over mutual TLS, for the adapter address's host, when the cluster's add-on names one, and refuses plain calls",
      ],
    ),
  },
  'kubernetes.clusters[].apiDns.dnsZone': {
    effect: "the zone of a managed cluster's API name",
    proof: proofs([CMK, "names the API in the Cloudflare zone: a CNAME to CMK's own name"]),
  },
  'kubernetes.clusters[].apiDns.provider': {
    effect: 'the DNS provider writing that name',
    proof: proofs([CMK, "names the API in the Cloudflare zone: a CNAME to CMK's own name"]),
  },
  'kubernetes.clusters[].apiDns.hostname': {
    effect: 'the name in the zone',
    proof: proofs([CMK, "names the API in the Cloudflare zone: a CNAME to CMK's own name"]),
  },
  'kubernetes.clusters[].access.apiAllowedCidrs': {
    effect: 'who may reach the API port',
    proof: proofs(
      [
        'test/lifecycle/firewalls.test.ts',
        'behind an API load balancer, open no API port on control planes and the LB API role only to the allowed ranges and the machines',
      ],
      [
        'test/lifecycle/firewalls.test.ts',
        "behind a reserved IP with a restricted list, let the workers (and every other machine) reach the control plane's API",
      ],
    ),
  },
  'kubernetes.clusters[].access.sshAllowedCidrs': {
    effect: 'who may reach the nodes over SSH',
    proof: proofs([CMK, 'has the VPC rules the manifest asks for, beside the ones CMK keeps for its control plane']),
  },
  'kubernetes.clusters[].upgrade.strategy': {
    effect: 'rolling: workers follow the control plane in place; on-delete: they keep their version until replaced',
    proof: proofs(['test/lifecycle/manifest-effects.test.ts', 'on-delete: the control plane moves to the new version, the workers keep theirs until replaced']),
  },
  'kubernetes.clusters[].upgrade.maxSurge': {
    effect: 'how many workers an in-place upgrade drains and upgrades at a time',
    proof: proofs(
      ['test/lifecycle/manifest-effects.test.ts', 'rolling with maxSurge 2: workers are drained and upgraded two at a time, after the control plane'],
      ['test/lifecycle/manifest-effects.test.ts', 'rolling with maxSurge 0 or left out: one worker at a time'],
    ),
  },
  'kubernetes.clusters[].encryption.secretsAtRest': {
    effect: 'Secrets encrypted in etcd (an EncryptionConfiguration the apiserver reads), or not',
    proof: proofs(
      [
        'packages/handlers/src/cli/commands/render-fields.test.ts',
        'secretsAtRest true: the control plane gets an EncryptionConfiguration and the apiserver reads it',
      ],
      [
        'packages/handlers/src/cli/commands/render-fields.test.ts',
        'secretsAtRest false: no EncryptionConfiguration anywhere, and no encryption-provider-config flag on the apiserver',
      ],
    ),
  },
  'kubernetes.clusters[].remediation.notReadyMinutes': {
    effect: 'a worker NotReady this long is replaced; 0 never',
    proof: proofs(
      ['test/lifecycle/day-two.test.ts', 'remediates a worker whose kubelet hangs: NotReady past remediation.notReadyMinutes, its machine is replaced'],
      ['test/lifecycle/day-two.test.ts', 'leaves NotReady workers alone with remediation.notReadyMinutes: 0'],
    ),
  },

  // Load balancers.
  'loadBalancers.roles[].name': {
    effect: "the role's identity, referred to by load balancers",
    proof: proofs([HYBRID, "changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration"]),
  },
  'loadBalancers.roles[].protocol': {
    effect: 'the protocol of the listener and its firewall rule',
    proof: proofs([HYBRID, "changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration"]),
  },
  'loadBalancers.roles[].port': {
    effect: 'the port the load balancer listens on and opens',
    proof: proofs([HYBRID, "changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration"]),
  },
  'loadBalancers.roles[].targetPort': {
    effect: 'the port on the target nodes; 6443 makes the API role',
    proof: proofs([HYBRID, "changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration"]),
  },
  'loadBalancers.roles[].targetPools': {
    effect: "the pools whose nodes receive the role's traffic",
    proof: proofs([HYBRID, 'scales a pool up and down, adds and removes a pool, then is destroyed leaving nothing behind']),
  },
  'loadBalancers.roles[].settings.proxyProtocol': {
    effect: 'the PROXY protocol header towards the targets (tcp roles, default on; never the API role)',
    proof: proofs([
      'packages/handlers/src/cli/commands/render-fields.test.ts',
      'PROXY protocol on for a TCP role by default and off when settings say so, never on the API role or a UDP role; sticky only when asked',
    ]),
  },
  'loadBalancers.roles[].settings.stickySessions': {
    effect: 'a client sent to the same target (source-address hash)',
    proof: proofs([
      'packages/handlers/src/cli/commands/render-fields.test.ts',
      'PROXY protocol on for a TCP role by default and off when settings say so, never on the API role or a UDP role; sticky only when asked',
    ]),
  },
  'loadBalancers.clusters[].name': {
    effect: "the load balancer's identity",
    proof: proofs([HYBRID, "changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration"]),
  },
  'loadBalancers.clusters[].roles': {
    effect: 'the roles the load balancer serves',
    proof: proofs([HYBRID, "changes a load balancer's roles in place: the firewall opens the new port, and the LB nodes get the new nginx configuration"]),
  },
  'loadBalancers.clusters[].dns.dnsZone': {
    effect: "the zone of the load balancer's record (the API endpoint for an API load balancer)",
    proof: proofs([HYBRID, 'is created: machines in both clouds, DNS, every node Ready, a kubeconfig']),
  },
  'loadBalancers.clusters[].dns.provider': {
    effect: 'the DNS provider writing the record',
    proof: proofs([
      'test/netns/lifecycle-netns.e2e.test.ts',
      '${example}: every stage DONE with X/Y overlay handshakes, X = Y, a rebooted worker keeps its peers, nothing leaked',
    ]),
  },
  'loadBalancers.clusters[].dns.hostname': {
    effect: "the record's name in the zone",
    proof: proofs([HYBRID, 'is created: machines in both clouds, DNS, every node Ready, a kubeconfig']),
  },
  'loadBalancers.clusters[].dns.alternativeNames': {
    effect: 'one more record per name, pointing at the load balancer, removed on destroy',
    proof: proofs([
      'test/lifecycle/manifest-effects.test.ts',
      'gives each alternative name a record pointing at the load balancer, read back from Route 53, and removes them on destroy',
    ]),
  },
  'loadBalancers.clusters[].targetedK8s': {
    effect: 'the cluster the load balancer serves',
    proof: proofs([HYBRID, 'is created: machines in both clouds, DNS, every node Ready, a kubeconfig']),
  },
  'loadBalancers.clusters[].pools': {
    effect: 'the pools whose machines run the load balancer',
    proof: proofs([
      'test/lifecycle/firewalls.test.ts',
      'behind an API load balancer, open no API port on control planes and the LB API role only to the allowed ranges and the machines',
    ]),
  },
};
