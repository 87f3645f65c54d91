// Boot and controller timings of the simulated cluster side, from ../shared/latency-model.md (sources there; the
// estimates are marked). Kept here, apart from ../latency.ts, so the clouds' and the clusters' models stay readable.

/**
 * The cluster side's timing model (latency-model.md; estimates marked): node boot, kubeadm, CNI, node-lifecycle
 * controllers and Helm jobs, in milliseconds of virtual time. The simulated kubelets and controllers follow it.
 */
export const KUBE_TIMINGS = {
  /** OS preparation at first boot (containerd, kubeadm, kubelet, kubectl packages): 60 s (estimate). */
  osPreparationMs: 60_000,
  /** kubeadm init to a healthy control plane: 45 s (kubernetes/kubernetes#117984). */
  kubeadmInitMs: 45_000,
  /** kubeadm join of a worker once the API answers: 20 s (estimate). */
  kubeadmJoinMs: 20_000,
  /** kubeadm join --control-plane, one at a time (etcd member add): 40 s (estimate). */
  kubeadmControlPlaneJoinMs: 40_000,
  /** CNI (Cilium) ready on a node: 30 s (estimate). */
  ciliumReadyMs: 30_000,
  /** kube-controller-manager's node-monitor-grace-period: 40 s (Kubernetes default). */
  nodeMonitorGraceMs: 40_000,
  /** Taint-based eviction of pods from an unreachable node: tolerationSeconds 300 (Kubernetes default). */
  unreachableEvictionMs: 300_000,
  /** A scheduled pod to Ready with its image cached (estimate). */
  podStartMs: 5_000,
  /**
   * A helm-controller Job (klipper-helm: helm repo fetch, then `helm upgrade --install` without --wait, or
   * `helm uninstall`) from its pod running to done: 20 s (estimate; k3s's bundled charts take 10-30 s).
   */
  helmJobMs: 20_000,
  /**
   * A Job's container from running to its exit (0): the sandbox cannot run the image, so every Job's command takes
   * this long and succeeds (a stand-in choice, docs/sandbox.md; a short batch step).
   */
  jobContainerMs: 10_000,
  /** kubeadm's discovery retry interval, its timeout (15m0s in our JoinConfiguration) and the script's 5 attempts. */
  discoveryRetryMs: 5_000,
  discoveryTimeoutMs: 15 * 60_000,
  kubeadmAttempts: 5,
  /** The mesh sync timer's period (OnUnitActiveSec=60s): how soon a node sees what the engine published. */
  meshSyncIntervalMs: 60_000,
  /** An in-place upgrade: packages from the new minor's repository, kubeadm upgrade apply|node, kubelet restart (estimate). */
  kubeadmUpgradeMs: 120_000,
  /** The TTL kubeadm gives a token without one (24h). */
  defaultTokenTtlMs: 24 * 3600_000,
} as const;
