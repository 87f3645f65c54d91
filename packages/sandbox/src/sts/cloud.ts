// STS as a sandbox cloud (clouds/descriptor.ts): the AWS account's roles (kubeplane-provider by default) and the
// sessions it issues, whose keys EC2 and Route 53 accept. An account's service, of no provider type of its own;
// served on the AWS port with EC2 (ec2/cloud.ts).
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import type { SandboxCloud } from '../clouds/descriptor.js';
import { StsEmulator, type StsEmulatorOptions, type StsEmulatorState } from './emulator.js';

/** The Sandbox's options for the account's STS. */
export interface StsCloudOptions {
  sts?: Partial<StsEmulatorOptions>;
}

export const STS_SANDBOX_CLOUD: SandboxCloud<'sts', StsEmulator, StsEmulatorState, StsCloudOptions, { readonly sts: StsEmulator }> = {
  name: 'sts',
  title: 'AWS STS',
  build: ({ context, options, saved }) => {
    const emulator = new StsEmulator(context, {
      accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId,
      secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
      ...options.sts,
    });
    if (saved) emulator.restore(saved);
    return emulator;
  },
  state: (emulator) => emulator.state(),
  fields: (emulator) => ({
    /** The AWS account's STS: roles to assume (kubeplane-provider by default), and the keys EC2 and Route 53 accept. */
    sts: emulator,
  }),
  handlers: (emulator) => emulator.handlers(),
};
