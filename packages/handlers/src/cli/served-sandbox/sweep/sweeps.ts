// Every client's sweep operations, for the table (table.ts) and the tests that run them.
import type { CliOp, PythonOp, SweepClient } from './ops.js';
import { HCLOUD_CLI_OPS } from './hcloud-cli.ops.js';
import { KUBECTL_API_OPS } from './kubectl-api.ops.js';
import { KUBECTL_WORKLOADS_OPS } from './kubectl-workloads.ops.js';
import { PYTHON_HCLOUD_OPS } from './python-hcloud.ops.js';
import { PYTHON_KUBERNETES_OPS } from './python-kubernetes.ops.js';
import { AWS_CLI_OPS } from './aws-cli.ops.js';
import { BOTO3_OPS } from './boto3.ops.js';
import { PYTHON_KUBERNETES_WORKLOADS_OPS } from './python-kubernetes-workloads.ops.js';

export interface Sweep {
  client: SweepClient;
  ops: ReadonlyArray<CliOp | PythonOp>;
}

export const SWEEPS: readonly Sweep[] = [
  { client: 'python3-kubernetes', ops: PYTHON_KUBERNETES_OPS },
  { client: 'kubectl', ops: KUBECTL_API_OPS },
  { client: 'aws-cli', ops: AWS_CLI_OPS },
  { client: 'boto3', ops: BOTO3_OPS },
  { client: 'hcloud-cli', ops: HCLOUD_CLI_OPS },
  { client: 'python3-hcloud', ops: PYTHON_HCLOUD_OPS },
  { client: 'kubectl', ops: KUBECTL_WORKLOADS_OPS },
  { client: 'python3-kubernetes', ops: PYTHON_KUBERNETES_WORKLOADS_OPS },
];
