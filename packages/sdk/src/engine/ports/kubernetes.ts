// KubernetesApi: the part of a cluster's API the engine uses after the machines exist — nodes (labels,
// taints, cordon, drain with evictions that honour PodDisruptionBudgets, delete), config maps and secrets
// (mesh membership, outputs, add-on credentials) and deployments (add-on arguments). The providers package
// implements it over HTTPS from a kubeconfig; the sandbox serves the same wire format.
import type { Redacted } from '../../redacted.js';
import type { Outcome } from '../../provider/outcome.js';
import type { Taint } from '../../manifest/schema.js';

/** A node as the Kubernetes API reports it. */
export interface KubeNode {
  name: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  taints: Taint[];
  unschedulable: boolean;
  /** The Ready condition is True. */
  ready: boolean;
  /** When the Ready condition last changed (ms since epoch). */
  readySince?: number;
  providerId?: string;
  internalIp?: string;
  kubeletVersion?: string;
}

/** The changes kubeplane makes to a node object: labels, annotations, taints, unschedulable. */
export interface NodePatch {
  /** null removes a label. */
  labels?: Record<string, string | null>;
  /** null removes an annotation; annotations not named are left as they are. */
  annotations?: Record<string, string | null>;
  /** Replaces the node's taints with exactly these. */
  taints?: Taint[];
  unschedulable?: boolean;
  /** Sets `spec.providerID`; the API server takes it only while the field is empty (ValidateNodeUpdate). */
  providerId?: string;
}

/** Any Kubernetes object, as the API serves it: the fields every object has, the rest kept as sent. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
    creationTimestamp?: string;
    deletionTimestamp?: string;
  };
  [field: string]: unknown;
}

/** The port to a cluster's Kubernetes API, as far as the engine uses it. */
export interface KubernetesApi {
  /** Done when the API server answers /readyz; pending (with a reason) while it does not. */
  ready(): Promise<Outcome<void>>;
  /** The cluster's nodes. */
  listNodes(): Promise<KubeNode[]>;
  /** Changes a node's labels, annotations, taints or schedulability. */
  patchNode(name: string, patch: NodePatch): Promise<void>;
  /**
   * Cordons the node and evicts its pods (DaemonSet pods excepted), honouring PodDisruptionBudgets:
   * pending while an eviction is refused, done when only DaemonSet pods are left.
   */
  drainNode(name: string): Promise<Outcome<void>>;
  /** Deleting a node that is gone is fine. */
  deleteNode(name: string): Promise<void>;
  /** Creates or replaces a ConfigMap. */
  applyConfigMap(namespace: string, name: string, data: Record<string, string>, labels?: Record<string, string>): Promise<void>;
  /** A ConfigMap's data, or null when it does not exist. */
  getConfigMap(namespace: string, name: string): Promise<Record<string, string> | null>;
  /** Creates or replaces a Secret. */
  applySecret(namespace: string, name: string, data: Record<string, Redacted<string>>, labels?: Record<string, string>): Promise<void>;
  /** A Secret's data (redacted), or null when it does not exist. */
  getSecret(namespace: string, name: string): Promise<Record<string, Redacted<string>> | null>;
  /** Deletes a Secret; deleting one that is gone is not an error. */
  deleteSecret(namespace: string, name: string): Promise<void>;
  /** Container args of a deployment's first container, or null when the deployment does not exist. */
  getDeploymentArgs(namespace: string, name: string): Promise<string[] | null>;
  /** Sets the container args of a Deployment's first container. */
  setDeploymentArgs(namespace: string, name: string, args: string[]): Promise<void>;
  /**
   * Server-side apply (field manager `kubeplane`, conflicts forced) of any object whose kind the API server lists in
   * its discovery, custom resources of an established CRD included; returns the object as stored.
   */
  applyObject(object: KubeObject): Promise<KubeObject>;
  /** null when the object (or its kind) does not exist; `namespace` is ignored for cluster-scoped kinds. */
  getObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<KubeObject | null>;
  /** Every object of a kind (in one namespace, or all), optionally by label selector; [] when the kind is not served. */
  listObjects(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<KubeObject[]>;
  /** Deleting an object (or a kind) that is gone is fine. */
  deleteObject(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<void>;
}

/** Builds a client for a cluster from its admin kubeconfig (the engine never sees how it connects). */
export type KubernetesConnector = (kubeconfig: Redacted<string>) => KubernetesApi;
