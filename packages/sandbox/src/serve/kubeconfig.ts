// A kubeconfig for a served sandbox cluster: the admin kubeconfig's CA and client certificate as they are, only
// the server moved to the local port, with `tls-server-name` keeping verification on the cluster's real name.
import { Redacted } from '@kubeplane/sdk';
import { parseKubeconfig } from '@kubeplane/providers';

/**
 * A copy of the admin kubeconfig `admin` (embedded CA and client certificate required) pointing at `server`, the served
 * port, with `tls-server-name` so the certificate is still checked against the cluster's real name.
 */
export function servedKubeconfig(admin: Redacted<string>, server: string, tlsServerName: string): Redacted<string> {
  const c = parseKubeconfig(admin);
  const key = c.clientKeyPem;
  if (!c.caPem || !c.clientCertificatePem || !key) {
    throw new Error(`the kubeconfig of ${c.clusterName} has no embedded CA and client certificate`);
  }
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const user = `${c.clusterName}-admin`;
  const context = `${user}@${c.clusterName}-sandbox`;
  return Redacted.of(
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `  - name: ${c.clusterName}-sandbox`,
      '    cluster:',
      `      server: ${server}`,
      `      tls-server-name: ${tlsServerName}`,
      `      certificate-authority-data: ${b64(c.caPem)}`,
      'users:',
      `  - name: ${user}`,
      '    user:',
      `      client-certificate-data: ${b64(c.clientCertificatePem)}`,
      `      client-key-data: ${b64(key.reveal())}`,
      'contexts:',
      `  - name: ${context}`,
      '    context:',
      `      cluster: ${c.clusterName}-sandbox`,
      `      user: ${user}`,
      `current-context: ${context}`,
      '',
    ].join('\n'),
  );
}
