// Limits the manifest's rules enforce, which other modules (the JSON Schema, the model, bootstrap) also state.
export const NAME_LIMITS = { provider: 15, pool: 14, cluster: 28, loadBalancer: 28 } as const;
export const RESERVED_PORTS = { from: 64512, to: 65535 } as const;
export const API_SERVER_PORT = 6443;
