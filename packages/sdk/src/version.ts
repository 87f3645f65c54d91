// The SDK's version, as package.json says it (version.test.ts keeps the two equal): the tag of the images kubeplane
// runs in clusters for itself, such as the cluster autoscaler's adapter.
/** The SDK's version: the tag of the images kubeplane runs in clusters for itself. */
export const SDK_VERSION = '0.1.0';
