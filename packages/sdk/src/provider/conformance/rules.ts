// The numbered rules of docs/provider-contract.md, as data: the document and the suite use the same list.

/** One numbered rule of the provider contract: its id, what it says, and whether it is mandatory. */
export interface ContractRule {
  id: string;
  title: string;
  mandatory: boolean | 'with-capability';
}

/** The numbered rules of docs/provider-contract.md, which every provider must follow. */
export const CONTRACT_RULES = [
  { id: 'C1', title: 'capabilities match the APIs the provider exposes', mandatory: true },
  { id: 'C2', title: 'every created resource carries the cluster tag; nodes also the nodepool tag', mandatory: true },
  { id: 'C3', title: 'createNode is idempotent by deterministic name', mandatory: true },
  { id: 'C4', title: 'a create whose response was lost is not duplicated on retry', mandatory: true },
  { id: 'C5', title: 'long operations return pending, never sleep; nodes go from pending to running in virtual time', mandatory: true },
  { id: 'C6', title: 'terminal errors are KubeplaneErrors of the right kind with the provider code', mandatory: true },
  { id: 'C7', title: 'throttling becomes pending(throttled) honouring the delay the cloud gave', mandatory: true },
  { id: 'C8', title: 'transient failures become pending(retryable) and then succeed', mandatory: true },
  { id: 'C9', title: 'deleting what is gone is done', mandatory: true },
  { id: 'C10', title: "listNodes returns exactly the cluster's nodes, including one created a moment ago", mandatory: true },
  { id: 'C11', title: 'credentials never appear in errors, logs or dumps', mandatory: true },
  { id: 'C12', title: 'network resources are idempotent to ensure and to delete', mandatory: 'with-capability' },
  { id: 'C13', title: 'ensureFirewall converges the rules to exactly the requested set', mandatory: 'with-capability' },
  { id: 'C14', title: 'teardownCluster removes everything tagged and can be repeated', mandatory: true },
  { id: 'C15', title: 'DNS changes are pending until in sync; record deletes are idempotent', mandatory: 'with-capability' },
  { id: 'C16', title: 'server types, images and zones can be looked up', mandatory: true },
  { id: 'C17', title: 'providerId has the Kubernetes spec.providerID form', mandatory: true },
  { id: 'C18', title: 'pools in two regions of one account: each resource made once per the scope the provider declares', mandatory: true },
] as const satisfies readonly ContractRule[];
