// EC2 as a sandbox cloud (clouds/descriptor.ts): one emulator per region, each with its own state as on AWS, signed
// requests checked against the account's STS, and one served port for AWS (EC2 in every region, Route 53 and STS).
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import type { NodeGpus, SandboxCloud, ServedAs, WithFloor } from '../clouds/descriptor.js';
import { LATENCY } from '../latency.js';
import { STS_SANDBOX_CLOUD } from '../sts/cloud.js';
import { SANDBOX_PROVIDER_ROLE } from '../sts/emulator.js';
import { AWS_DEFAULT_ENABLED_REGIONS, AWS_REGIONS, EC2_INSTANCE_TYPES, Ec2Emulator, type Ec2EmulatorOptions, type Ec2EmulatorState } from './emulator.js';
import { awsTarget } from './served.js';

/**
 * The regions a Sandbox serves EC2 in unless told otherwise: every Region a new AWS account has enabled (those that need
 * no opt-in, catalogs/aws/regions.json), eu-central-1 first (`sandbox.ec2`).
 */
export const SANDBOX_EC2_REGIONS: string[] = ['eu-central-1', ...AWS_DEFAULT_ENABLED_REGIONS.filter((r) => r !== 'eu-central-1')];

/** The Sandbox's options for EC2. */
export interface Ec2CloudOptions {
  /**
   * Every region's options (`region` alone, without `ec2Regions`, makes it the only region). `ec2.accountRegions` names
   * the account's enabled Regions outright (a narrower account than a new one); `ec2.offerings` narrows what a Region
   * offers. Both are explicit choices of a test or of the CLI: the default account is a new AWS account.
   */
  ec2?: Partial<Ec2EmulatorOptions>;
  /**
   * EC2 regions served, each with its own state as on AWS (default: SANDBOX_EC2_REGIONS and the opt-in Regions of
   * `awsOptInRegions`). A test may serve fewer; the account's enabled Regions do not change with them.
   */
  ec2Regions?: string[];
  /**
   * Opt-in Regions the account has enabled (default: none, as in a new account: eu-central-2 and every other Region
   * launched since March 2019 must be enabled first, https://docs.aws.amazon.com/accounts/latest/reference/manage-acct-regions.html).
   * They are served besides the default ones.
   */
  awsOptInRegions?: string[];
}

/**
 * The Regions the sandbox's AWS account has enabled: every Region that needs no opt-in and the opt-in ones it was given;
 * one that is no opt-in Region of the snapshot is refused, naming it.
 */
export function sandboxAccountRegions(optIn: readonly string[] = []): string[] {
  for (const name of optIn) {
    const region = AWS_REGIONS.find((r) => r.name === name);
    const optInNames = AWS_REGIONS.filter((r) => r.optIn).map((r) => r.name);
    if (!region) throw new Error(`awsOptInRegions: ${name} is no AWS Region (the opt-in Regions: ${optInNames.join(', ')})`);
    if (!region.optIn) throw new Error(`awsOptInRegions: ${name} needs no opt-in; every account has it enabled`);
  }
  return [...AWS_DEFAULT_ENABLED_REGIONS, ...optIn.filter((r, i) => optIn.indexOf(r) === i)];
}

/** EC2 per region, in the order the sandbox serves them. */
export type Ec2Regions = ReadonlyMap<string, Ec2Emulator>;

const NO_GPUS: NodeGpus = { count: 0, model: '' };

export const EC2_SANDBOX_CLOUD: SandboxCloud<
  'ec2',
  Ec2Regions,
  Ec2EmulatorState[],
  Ec2CloudOptions,
  { readonly ec2: Ec2Emulator; readonly ec2Regions: Ec2Regions }
> &
  ServedAs<'aws'> &
  WithFloor = {
  name: 'ec2',
  title: 'Amazon EC2',
  providerType: 'aws',
  build: ({ context, options, saved, use }): Ec2Regions => {
    const keyring = use(STS_SANDBOX_CLOUD);
    const optIn = options.awsOptInRegions ?? [];
    const account = options.ec2?.accountRegions ?? sandboxAccountRegions(optIn);
    const regions = saved
      ? saved.map((e) => e.region)
      : (options.ec2Regions ??
        (options.ec2?.region ? [options.ec2.region] : [...SANDBOX_EC2_REGIONS, ...optIn.filter((r) => !SANDBOX_EC2_REGIONS.includes(r))]));
    const emulators = new Map(
      regions.map((region) => [
        region,
        new Ec2Emulator(context, {
          accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId,
          secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
          zones: AWS_REGIONS.find((r) => r.name === region)?.zones.map((z) => z.name) ?? [`${region}a`, `${region}b`, `${region}c`],
          // A world saved before the catalogs had the Regions it served enabled; its saved state says so (restore).
          accountRegions: saved && !saved.some((e) => e.accountRegions) ? [...new Set([...account, ...regions])] : account,
          keyring,
          ...options.ec2,
          region,
        }),
      ]),
    );
    for (const state of saved ?? []) emulators.get(state.region)?.restore(state);
    return emulators;
  },
  // One state per region, in the order the sandbox serves them (the first is `sandbox.ec2`).
  state: (regions) => [...regions.values()].map((e) => e.state()),
  fields: (regions) => ({
    /** EC2 in the first region (eu-central-1 by default). */
    ec2: [...regions.values()][0] as Ec2Emulator,
    /** EC2 per region. */
    ec2Regions: regions,
  }),
  handlers: (regions) => [...regions.values()].flatMap((e) => e.handlers()),
  inventory: (regions) => [...regions.values()].flatMap((e) => e.inventory()),
  listVms: (regions) => [...regions.values()].flatMap((e) => e.listVms()),
  unbilledStates: ['shutting-down', 'terminated'],
  unservedHint: (regions, url) => {
    const region = /^ec2\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1];
    if (region === undefined) return undefined;
    // EC2 takes Query requests by GET or POST (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/Query-Requests.html);
    // the sandbox serves POST / only, which is what the SDKs and the CLI send.
    if (regions.has(region)) return 'the sandbox serves EC2 Query requests as POST / only';
    return `the sandbox emulates EC2 in ${[...regions.keys()].join(', ')}, not in ${region}`;
  },
  onAwsCall: (regions, listener) => [...regions.values()].map((e) => e.onCall(listener)),
  provider: {
    // The account's keys and its provider role: a cluster's work is a session of the role tagged with the cluster, as
    // a deployed runtime does it (docs/serverless.md); project-wide reads use the keys.
    credentials: () => ({
      accesskey: SANDBOX_CREDENTIALS.awsAccessKeyId,
      secretkey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
      rolearn: SANDBOX_PROVIDER_ROLE,
    }),
    addonCredentials: { accesskey: SANDBOX_CREDENTIALS.awsAccessKeyId, secretkey: SANDBOX_CREDENTIALS.awsSecretAccessKey },
    contract: { 'create-node': 'RunInstances', 'list-nodes': 'DescribeInstances', 'delete-node': 'TerminateInstances' },
    capacityOperation: 'RunInstances',
  },
  serve: {
    key: 'aws',
    port: 0,
    path: '',
    title: (regions) => `EC2 (${[...regions.keys()].join(', ')}) and Route 53`,
    route: (regions, request) => awsTarget(request.url, request.authorization, [...regions.keys()]),
    env: (regions, url, secret) => [
      ['AWS_ENDPOINT_URL', url],
      ['AWS_ACCESS_KEY_ID', SANDBOX_CREDENTIALS.awsAccessKeyId],
      ['AWS_SECRET_ACCESS_KEY', secret(SANDBOX_CREDENTIALS.awsSecretAccessKey)],
      ['AWS_DEFAULT_REGION', [...regions.keys()][0] ?? 'eu-central-1'],
    ],
  },
  // A block per region; regions other than these hash into the blocks left (public-addresses.ts).
  publicAddressOwners: SANDBOX_EC2_REGIONS.map((region) => `ec2:${region}`),
  floor: {
    // RunInstances: 5 burst, then 2 per second.
    nodeCreationMs: (nodes) => (Math.max(0, nodes - 5) / 2) * 1000 + LATENCY.ec2RunInstancesCall + LATENCY.ec2PendingToRunning.typicalMs,
  },
  gpus: (machineType) => {
    const type = EC2_INSTANCE_TYPES.find((t) => t.name === machineType);
    return type?.gpu ? { count: type.gpu.count, model: `${type.gpu.manufacturer} ${type.gpu.name}` } : NO_GPUS;
  },
};
