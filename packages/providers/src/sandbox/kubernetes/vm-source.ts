// What the simulated kubelets need from the sandbox clouds: the machines that exist, their state and the user-data
// they were created with. Each cloud emulator implements SandboxVmSource; the Kubernetes emulator only reads it.

export type SandboxVmState = 'pending' | 'running' | 'stopping' | 'stopped' | 'terminated';

export interface SandboxVm {
  /** The cloud that runs it (`ec2`, `hetzner`, ...). Together with `name` it identifies the machine. */
  cloud: string;
  name: string;
  state: SandboxVmState;
  /** Virtual ms since the epoch when the machine entered `running` (its first boot starts then). */
  runningSinceMs?: number;
  /** When it stopped running, if the cloud knows (otherwise: when the Kubernetes emulator first noticed). */
  stoppedAtMs?: number;
  /**
   * The user-data as the cloud received it: raw bytes, text, or base64 (EC2's wire format), each possibly gzip
   * (cloud-init inflates gzip itself). An empty string means none.
   */
  userData: string | Uint8Array;
  publicIPv4?: string;
  privateIPv4?: string;
}

export interface SandboxVmSource {
  listVms(): SandboxVm[];
}
