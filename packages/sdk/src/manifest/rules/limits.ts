// Limits the manifest's rules enforce, which other modules (the JSON Schema, the model, bootstrap) also state.
/** The longest name of each kind of manifest element. */
export const NAME_LIMITS = { provider: 15, pool: 14, cluster: 28, loadBalancer: 28 } as const;
/** Ports that load-balancer roles may not use. */
export const RESERVED_PORTS = { from: 64512, to: 65535 } as const;
/** The port the Kubernetes API server listens on. */
export const API_SERVER_PORT = 6443;
