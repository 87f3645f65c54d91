// AWS SDK client settings for clients that must reach AWS's own endpoints whatever is configured outside the code:
// the sandbox's in-process clouds answer at those hostnames, and only there.

/**
 * Ignores AWS_ENDPOINT_URL, AWS_ENDPOINT_URL_<SERVICE> and a profile's endpoint_url (ignoreConfiguredEndpointUrls,
 * https://docs.aws.amazon.com/sdkref/latest/guide/feature-ss-endpoints.html), and AWS_USE_FIPS_ENDPOINT and
 * AWS_USE_DUALSTACK_ENDPOINT, which move requests to other hostnames. The region and credentials are given as well.
 */
export const OWN_ENDPOINTS = { ignoreConfiguredEndpointUrls: true, useFipsEndpoint: false, useDualstackEndpoint: false } as const;
