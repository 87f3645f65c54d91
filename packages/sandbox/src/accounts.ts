// The sandbox's accounts: the credentials every sandbox cloud accepts by default, the Crusoe project and the
// Cloudflare account they belong to, the DNS zones those own, and the SSH key sandbox machines get.

/** The credentials the sandbox accepts by default (fake values, but treated as secrets all the same). */
export const SANDBOX_CREDENTIALS = {
  /**
   * 64 letters and digits, as Hetzner issues API tokens (newer hcloud CLIs refuse a token of another length, and the
   * hetzner profile's credentials check asks for the same).
   */
  hetznerToken: 'sandboxhetznertoken7f3c9a1e5b2d4c6f8e0a4b1d9c7e2f5a8b3d6c0e1f47a',
  awsAccessKeyId: 'AKIASANDBOX000000001',
  awsSecretAccessKey: 'sandbox/aws/secret/key/5e1b7d9c3a2f4e6b8d0c',
  crusoeAccessKeyId: 'CRUSOESANDBOXKEY0001',
  /** Unpadded base64url, as Crusoe issues secret keys. */
  crusoeSecretKey: Buffer.from('sandbox-crusoe-secret-key-2f9e4b7c1d3a').toString('base64url'),
  crusoeProjectId: 'a1b2c3d4-0000-4000-8000-00000000c0de',
  cloudflareApiToken: 'sandbox-cloudflare-token-9c4e2a7b5d1f3e8a6c0b',
  cloudflareAccountId: '0c0ffee0c0ffee0c0ffee0c0ffee0c0f',
} as const;

/** The Cloudflare account's own zone. */
export const SANDBOX_CLOUDFLARE_ZONE = 'kubeplane-sandbox.dev';

/**
 * The zones the sandbox's Cloudflare account owns: its own, and those the other sandbox DNS clouds serve by default
 * (Route 53 example.com, Hetzner example.de), so a manifest's dnsZone written for one of them works with Cloudflare.
 */
export const SANDBOX_CLOUDFLARE_ZONES: readonly string[] = [SANDBOX_CLOUDFLARE_ZONE, 'example.com', 'example.de'];

/** Crusoe requires an SSH key on every VM; sandbox machines get this one. */
export const SANDBOX_SSH_PUBLIC_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH3eC6F8mgbVf1kEXnBFqQyrm0Ae4jMX0lCezHzDdJ3X kubeplane-sandbox';
