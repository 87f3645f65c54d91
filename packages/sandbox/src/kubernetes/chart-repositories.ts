// The chart repositories the sandbox's simulated helm-controller installs from: per repository URL, the charts and
// versions its index.yaml publishes (at least the versions kubeplane's catalog pins and one newer each, issue 14).
// Sources, each repository's index: https://helm.cilium.io/index.yaml, https://charts.hetzner.cloud/index.yaml,
// https://kubernetes-sigs.github.io/aws-ebs-csi-driver/index.yaml,
// https://crusoecloud.github.io/crusoe-csi-driver-helm-charts/charts/index.yaml, https://charts.longhorn.io/index.yaml,
// https://kubernetes-sigs.github.io/metrics-server/index.yaml, https://helm.ngc.nvidia.com/nvidia/index.yaml,
// https://kubernetes.github.io/autoscaler/index.yaml. The appVersions are the charts' Chart.yaml appVersion as the
// projects release them (chart and app move together for cilium, hcloud-csi, longhorn and the NVIDIA operators;
// aws-ebs-csi-driver's chart 2.x ships driver 1.x; metrics-server's chart 3.13 ships 0.8; cluster-autoscaler's
// chart 9.50/9.51 ship 1.34).

/** One published version of a chart, as a repository's index.yaml lists it. */
export interface ChartVersion {
  version: string;
  appVersion: string;
  description: string;
}

/** Repository URL (no trailing slash) -> chart name -> published versions. */
export const CHART_REPOSITORIES: Readonly<Record<string, Readonly<Record<string, readonly ChartVersion[]>>>> = {
  'https://helm.cilium.io': {
    cilium: [
      { version: '1.18.5', appVersion: '1.18.5', description: 'eBPF-based Networking, Security, and Observability' },
      { version: '1.18.6', appVersion: '1.18.6', description: 'eBPF-based Networking, Security, and Observability' },
    ],
  },
  'https://charts.hetzner.cloud': {
    'hcloud-csi': [
      { version: '2.18.0', appVersion: '2.18.0', description: 'Kubernetes Container Storage Interface driver for Hetzner Cloud Volumes' },
      { version: '2.18.1', appVersion: '2.18.1', description: 'Kubernetes Container Storage Interface driver for Hetzner Cloud Volumes' },
    ],
  },
  'https://kubernetes-sigs.github.io/aws-ebs-csi-driver': {
    'aws-ebs-csi-driver': [
      { version: '2.48.0', appVersion: '1.48.0', description: 'A Helm chart for AWS EBS CSI Driver' },
      { version: '2.49.0', appVersion: '1.49.0', description: 'A Helm chart for AWS EBS CSI Driver' },
    ],
  },
  'https://crusoecloud.github.io/crusoe-csi-driver-helm-charts/charts': {
    // The versions CMK clusters of the sandbox come with (cmk-clusters.ts), the one before the key-path change
    // (0.6.2), that change (0.7.0, CHANGELOG.md), and NFS's (0.10.3+); appVersions from the repository's index.yaml.
    'crusoe-csi-driver': [
      { version: '0.6.2', appVersion: 'v0.2.1', description: 'A Helm chart for the Crusoe Cloud CSI Driver' },
      { version: '0.7.0', appVersion: 'v0.3.0', description: 'A Helm chart for the Crusoe Cloud CSI Driver' },
      { version: '0.9.0', appVersion: 'v0.3.3', description: 'A Helm chart for the Crusoe Cloud CSI Driver' },
      { version: '0.10.3', appVersion: 'v0.4.0', description: 'A Helm chart for the Crusoe Cloud CSI Driver' },
      { version: '0.10.4', appVersion: 'v0.4.1', description: 'A Helm chart for the Crusoe Cloud CSI Driver' },
    ],
  },
  'https://charts.longhorn.io': {
    longhorn: [
      { version: '1.9.1', appVersion: 'v1.9.1', description: 'Longhorn is a distributed block storage system for Kubernetes.' },
      { version: '1.9.2', appVersion: 'v1.9.2', description: 'Longhorn is a distributed block storage system for Kubernetes.' },
    ],
  },
  'https://kubernetes-sigs.github.io/metrics-server': {
    'metrics-server': [
      {
        version: '3.13.0',
        appVersion: '0.8.0',
        description: 'Metrics Server is a scalable, efficient source of container resource metrics for Kubernetes built-in autoscaling pipelines.',
      },
      {
        version: '3.13.1',
        appVersion: '0.8.1',
        description: 'Metrics Server is a scalable, efficient source of container resource metrics for Kubernetes built-in autoscaling pipelines.',
      },
    ],
  },
  'https://helm.ngc.nvidia.com/nvidia': {
    'gpu-operator': [
      { version: 'v25.3.2', appVersion: 'v25.3.2', description: 'NVIDIA GPU Operator creates/configures/manages GPUs atop Kubernetes' },
      { version: 'v25.3.3', appVersion: 'v25.3.3', description: 'NVIDIA GPU Operator creates/configures/manages GPUs atop Kubernetes' },
    ],
    'network-operator': [
      { version: '25.4.0', appVersion: 'v25.4.0', description: 'Nvidia network operator' },
      { version: '25.7.0', appVersion: 'v25.7.0', description: 'Nvidia network operator' },
    ],
  },
  'https://kubernetes.github.io/autoscaler': {
    'cluster-autoscaler': [
      { version: '9.50.1', appVersion: '1.34.0', description: 'Scales Kubernetes worker nodes within autoscaling groups.' },
      { version: '9.51.0', appVersion: '1.34.0', description: 'Scales Kubernetes worker nodes within autoscaling groups.' },
    ],
  },
};

/**
 * The chart version a repository publishes, or helm's error for one it does not
 * (helm pkg/repo/index.go IndexFile.Get: `chart "<name>" version "<version>" not found in <repo> repository`;
 * an unknown chart: `chart "<name>" not found in <repo> repository`; no version asked: the newest).
 */
export function findChart(repo: string, chart: string, version: string | undefined): { found: ChartVersion } | { error: string } {
  const url = repo.replace(/\/+$/, '');
  const charts = CHART_REPOSITORIES[url];
  if (!charts) return { error: `looks like "${repo}" is not a valid chart repository or cannot be reached: failed to fetch ${url}/index.yaml : 404 Not Found` };
  const versions = charts[chart];
  if (!versions) return { error: `chart "${chart}" not found in ${url} repository` };
  const found = version
    ? versions.find((v) => v.version === version || `v${v.version}` === version || v.version === `v${version}`)
    : versions[versions.length - 1];
  if (!found) return { error: `chart "${chart}" version "${version ?? ''}" not found in ${url} repository` };
  return { found };
}
