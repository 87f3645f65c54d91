// The AWS provider type's profile (see profile.ts).
import { optionalKey, requiredKey, type ProviderProfile } from './profile.js';

/** `aws:///eu-central-1a/i-0abc` → `eu-central-1a` (cloud-provider-aws's KubernetesInstanceID form). */
function zoneOfProviderId(providerId: string | undefined): string | undefined {
  const m = providerId ? /^aws:\/\/\/([^/]+)\/[^/]+$/.exec(providerId) : null;
  return m?.[1];
}

export const AWS_PROFILE: ProviderProfile<'aws'> = {
  type: 'aws',
  credentials: [
    { ...requiredKey('accesskey', { pattern: /^[A-Z0-9]{20}$/, description: '20 upper-case letters and digits' }), requiredUnless: 'rolearn' },
    { ...requiredKey('secretkey', { pattern: /^.{40}$/, description: 'exactly 40 characters' }), requiredUnless: 'rolearn' },
    // Temporary keys (an ASIA… key) come with their session token.
    optionalKey('sessiontoken'),
    // A role the provider works as, one short session per cluster tagged with its id (docs/providers.md, AWS).
    optionalKey('rolearn', {
      pattern: /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/,
      description: 'an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)',
    }),
    optionalKey('externalid', { pattern: /^[\w+=,.@:/-]{2,1224}$/, description: '2 to 1224 of letters, digits and +=,.@:/-' }),
  ],
  dns: true,
  spot: true,
  compute: true,
  managedKubernetes: false,
  userData: { limit: 16_384, binary: true, source: 'EC2 RunInstances UserData: 16 KB of raw bytes, base64-encoded on the wire' },
  // Instances have a private address; the public one is the internet gateway's 1:1 NAT.
  behindNat: true,
  // The storage disk is an EBS volume in the instance's block device mapping. On Nitro instances EBS volumes are NVMe
  // devices whose model is "Amazon Elastic Block Store" and whose serial is the volume id (udev's by-id link
  // nvme-Amazon_Elastic_Block_Store_vol…); on Xen instances the mapping's /dev/sdf is the kernel's /dev/xvdf
  // (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/device_naming.html, nvme-ebs-volumes.html).
  storageDisk: {
    byId: ['/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol*', '/dev/xvdf'],
    source: 'EC2 User Guide: device names for volumes; Amazon EBS and NVMe',
  },
  // Graviton families have a `g` after the generation (t4g, m7g, c6gn, r8gd).
  arch: (serverType) => (/^[a-z]+\d+g[a-z]*\./.test(serverType) ? 'arm64' : 'amd64'),
  // kubernetes/cloud-provider-aws, pkg/providers/v1/instances_v2.go (InstanceMetadata): zone = the availability zone.
  topology: ({ region, zone, providerId }) => ({ region, zone: zoneOfProviderId(providerId) ?? zone }),
  // Accelerated computing with NVIDIA GPUs: the P and G families (https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing).
  nvidiaGpus: (serverType) => /^(p[2-6]|g[4-6])[a-z0-9-]*\./.test(serverType),
};
