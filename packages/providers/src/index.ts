// @kubeplane/providers: one folder per cloud, and the sandbox clouds.
export {};
