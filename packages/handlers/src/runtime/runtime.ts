// One interface over every place kubeplane's engine runs: a local state directory against the real clouds or the
// sandbox's, an AWS account (Lambda, DynamoDB, SQS) and a Google project (Cloud Functions, Firestore, Cloud Tasks),
// as Pulumi's Automation API has one Workspace with local and remote implementations. What drives the engine (a CLI
// command, a function handler, a script) takes a Runtime and needs to know no more.
import type { Clock, Kubeplane } from '@kubeplane/sdk';

/** Where the engine runs: locally against real or sandbox clouds, on AWS or on Google Cloud. */
export type RuntimeKind = 'local' | 'sandbox' | 'aws' | 'google';

/** One place kubeplane's engine runs: its Kubeplane, its clock, and what to release when done. */
export interface Runtime {
  readonly kind: RuntimeKind;
  readonly kubeplane: Kubeplane;
  readonly clock: Clock;
  /**
   * Releases what it holds: a state directory's writer lock, the sandbox's interception of HTTP, network namespaces.
   * The serverless runtimes hold nothing that outlives a call.
   */
  close(): Promise<void>;
}
