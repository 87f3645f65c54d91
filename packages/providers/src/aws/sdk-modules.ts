// The AWS SDK clients, loaded on first use: importing @kubeplane/providers (for Hetzner, say, or to validate a
// manifest) does not pay for the EC2 client's ~1 s import, and a process that never calls AWS never loads it.
export type Ec2Module = typeof import('@aws-sdk/client-ec2');
export type Route53Module = typeof import('@aws-sdk/client-route-53');
export type StsModule = typeof import('@aws-sdk/client-sts');

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    // A failed load (a broken install) is not kept: the next call tries again and reports its own error.
    loaded ??= load().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

export const loadEc2 = once((): Promise<Ec2Module> => import('@aws-sdk/client-ec2'));
export const loadRoute53 = once((): Promise<Route53Module> => import('@aws-sdk/client-route-53'));
export const loadSts = once((): Promise<StsModule> => import('@aws-sdk/client-sts'));
