import { Redacted } from '@kubeplane/sdk';
import { runProviderConformance } from '@kubeplane/sdk/conformance';
import { CRUSOE_SANDBOX_CREDENTIALS, CrusoeSandbox, SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import { CrusoeProvider } from './provider.js';

const WRONG_SECRET = Buffer.from('not-the-crusoe-secret-0123456789').toString('base64url');

runProviderConformance({
  name: 'crusoe',
  sandbox: () => new CrusoeSandbox({ seed: 11 }),
  makeProvider: (s) =>
    new CrusoeProvider({
      accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
      secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
      projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
      clock: s.clock,
      sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
      random: () => 0.5,
    }),
  makeUnauthorizedProvider: (s) =>
    new CrusoeProvider({
      accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
      secretKey: Redacted.of(WRONG_SECRET),
      projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
      clock: s.clock,
      sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
    }),
  secretValues: [CRUSOE_SANDBOX_CREDENTIALS.secretKey, WRONG_SECRET],
  fixtures: { region: 'us-east1-a', serverType: 'c1a.4x', image: 'ubuntu22.04:latest', secondRegion: { region: 'us-northcentral1-a' } },
});
