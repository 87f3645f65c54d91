// How every AWS client of the serverless runtime is configured: an explicit region, bounded retries, and
// (in tests or against emulators) an endpoint and static credentials, so no client ever probes instance
// metadata or a profile it was not given.
/** How an AWS client of the runtime is made: region, endpoint, static credentials and attempts. */
export interface AwsClientOptions {
  region: string;
  /** An emulator or VPC endpoint; the SDK's default endpoint when absent. */
  endpoint?: string;
  /** Static credentials (emulators, tests); the SDK's provider chain (the Lambda role) when absent. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Attempts per call including the first (default 3). The engine retries steps itself, so keep it small. */
  maxAttempts?: number;
}

/** The configuration passed to an AWS SDK client. */
export interface AwsClientConfig {
  region: string;
  maxAttempts: number;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/** The AWS SDK client configuration for the options: an explicit region and bounded retries. */
export function awsClientConfig(options: AwsClientOptions): AwsClientConfig {
  return {
    region: options.region,
    maxAttempts: options.maxAttempts ?? 3,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}
