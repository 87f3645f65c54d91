import { Redacted } from '@kubeplane/sdk';
import { runManagedKubernetesConformance } from '@kubeplane/sdk/conformance';
import { CRUSOE_SANDBOX_CREDENTIALS, CrusoeSandbox, SANDBOX_SSH_PUBLIC_KEY } from '@kubeplane/sandbox';
import { CrusoeProvider } from './provider.js';

runManagedKubernetesConformance({
  name: 'crusoe',
  sandbox: () => new CrusoeSandbox({ seed: 5 }),
  makeProvider: (s) =>
    new CrusoeProvider({
      accessKeyId: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.accessKeyId),
      secretKey: Redacted.of(CRUSOE_SANDBOX_CREDENTIALS.secretKey),
      projectId: CRUSOE_SANDBOX_CREDENTIALS.projectId,
      clock: s.clock,
      sshPublicKey: SANDBOX_SSH_PUBLIC_KEY,
      random: () => 0.5,
    }),
  fixtures: { region: 'us-east1-a', version: '1.33.4-cmk.15', serverType: 'c1a.8x', addons: ['crusoe_csi', 'cluster_autoscaler'] },
});
