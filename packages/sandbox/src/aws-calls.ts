// What the sandbox's EC2 and Route 53 emulators tell an audit listener about each signed request: the action, its
// Region, its parameters and the resources it names with the tags they carry — what IAM evaluates a request against.

/** One resource a request names, as IAM sees it when it authorizes the request (before the call changes anything). */
export interface AwsCallResource {
  /**
   * Its resource type as the Service Authorization Reference names it (`instance`, `security-group`, `key-pair`,
   * `hostedzone`, `healthcheck` …): https://docs.aws.amazon.com/service-authorization/latest/reference/.
   */
  type: string;
  /**
   * The id its ARN ends in (an instance id, a key pair's name, a hosted zone id); `*` for a resource the call creates
   * and the service names afterwards (IAM authorizes `instance/*` for RunInstances).
   */
  id: string;
  /** Its tags before the call; for a resource the call creates, the tags the request gives it (tag on create). */
  tags: Record<string, string>;
  /** The call creates it: IAM sees its tags as request tags (`aws:RequestTag`), not resource tags. */
  created: boolean;
  /** An image's owner: an account id, or `amazon` (the `ec2:Owner` condition key). */
  owner?: string;
  /** Named by the request but not in the emulator's world: the call answers NotFound. */
  missing?: boolean;
}

/**
 * One signed request to the EC2 or Route 53 emulator as an IAM policy evaluates it: the action, its Region and
 * parameters, the resources it names with their tags, and the caller. Given to `Sandbox.onAwsCall` listeners before the
 * call is served.
 */
export interface AwsCall {
  service: 'ec2' | 'route53';
  action: string;
  /** The Region the request was sent to; Route 53, a global service, is signed for us-east-1. */
  region: string;
  /**
   * EC2: the Query parameters, less `UserData` (it holds the cluster's private keys). Route 53: the method, the
   * path and the query string's parameters.
   */
  params: Record<string, string>;
  /** ChangeResourceRecordSets: each change's action, record name (as sent) and type. */
  changes?: Array<{ action: string; name: string; type: string }>;
  resources: AwsCallResource[];
  /** Who signed it (the account's user, or a role session with its tags), where the sandbox's STS knows. */
  caller?: { arn: string; tags: Record<string, string> };
}

/** Receives each AwsCall; it runs synchronously before the request is served, so it must not throw. */
export type AwsCallListener = (call: AwsCall) => void;

/** The listeners of one emulator. */
export class AwsCallAudit {
  readonly #listeners = new Set<AwsCallListener>();

  add(listener: AwsCallListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Builds the record only when someone listens: the hot path of chaos runs pays nothing. */
  emit(call: () => AwsCall): void {
    if (this.#listeners.size === 0) return;
    const record = call();
    for (const listener of this.#listeners) listener(record);
  }
}
