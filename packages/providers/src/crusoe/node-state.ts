// Crusoe VM states (`STATE_RUNNING` in v1, `RUNNING` in older tools) as the contract's NodeState.
import type { NodeState } from '@kubeplane/sdk/provider';
import { plainState } from './schemas.js';

export function nodeState(state: string): NodeState {
  switch (plainState(state)) {
    case 'RUNNING':
      return 'running';
    case 'PROVISIONING':
    case 'CREATING':
    case 'DEFINING':
    case 'STARTING':
    case 'PENDING':
      return 'pending';
    case 'STOPPING':
    case 'SHUTTING_DOWN':
      return 'stopping';
    case 'STOPPED':
    case 'SHUTOFF':
      return 'stopped';
    case 'DELETING':
      return 'deleting';
    case 'DELETED':
      return 'deleted';
    case 'FAILED':
    case 'CRASHED':
    case 'BLOCKED':
      return 'failed';
    default:
      return 'unknown';
  }
}
