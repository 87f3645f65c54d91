// An add-on's state as the cluster reports it: the HelmChart's conditions (k3s-io/helm-controller) and the Helm
// release Secrets (`sh.helm.release.v1.<release>.v<revision>`, Helm 3's storage driver) of its release.
import { gunzipSync } from 'node:zlib';
import type { KubeObject } from '../engine/ports/kubernetes.js';
import { stableJson } from '../stable-json.js';

/** Where an add-on stands in the cluster, read from its HelmChart and Helm release. */
export type AddonState = 'installed' | 'installing' | 'failed' | 'removing';

/** What `kubeplane status` shows of an add-on, and what the cluster record keeps. */
export interface AddonStatus {
  name: string;
  chart: string;
  /** The chart version the manifest asks for (or the catalog's default). */
  declaredVersion: string;
  /** The chart version of the release's latest deployed revision. */
  installedVersion?: string;
  state: AddonState;
  message: string;
}

/** Helm 3's release record, the fields read here (helm.sh/helm/v3 pkg/release/release.go). */
export interface HelmRelease {
  name: string;
  namespace?: string;
  version: number;
  info?: { status?: string; description?: string; first_deployed?: string; last_deployed?: string };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string } };
  config?: Record<string, unknown>;
}

/**
 * A release Secret's `data.release`: base64 (the Secret's encoding) of base64 of the gzipped JSON release, as Helm's
 * storage driver writes it (pkg/storage/driver/util.go encodeRelease); an ungzipped body is read too, as Helm does.
 */
export function decodeRelease(secret: KubeObject): HelmRelease | null {
  const data = secret['data'];
  if (typeof data !== 'object' || data === null) return null;
  const field = (data as Record<string, unknown>)['release'];
  if (typeof field !== 'string') return null;
  try {
    const inner = Buffer.from(Buffer.from(field, 'base64').toString('utf8'), 'base64');
    const gzipped = inner[0] === 0x1f && inner[1] === 0x8b && inner[2] === 0x08;
    const json: unknown = JSON.parse((gzipped ? gunzipSync(inner) : inner).toString('utf8'));
    if (typeof json !== 'object' || json === null) return null;
    const r = json as Partial<HelmRelease>;
    if (typeof r.name !== 'string' || typeof r.version !== 'number') return null;
    return r as HelmRelease;
  } catch {
    return null;
  }
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
  message?: string;
}

function conditionsOf(chart: KubeObject): Condition[] {
  const status = chart['status'];
  if (typeof status !== 'object' || status === null) return [];
  const conditions = (status as { conditions?: unknown }).conditions;
  return Array.isArray(conditions) ? (conditions.filter((c) => typeof c === 'object' && c !== null) as Condition[]) : [];
}

/** The release revisions of the add-on's release, newest first, from its release Secrets. */
export function releasesOf(secrets: KubeObject[], release: string): HelmRelease[] {
  return secrets
    .filter((s) => s.metadata.labels?.['owner'] === 'helm' && s.metadata.labels?.['name'] === release)
    .map(decodeRelease)
    .filter((r): r is HelmRelease => r !== null && r.name === release)
    .sort((a, b) => b.version - a.version);
}

/** An add-on as observed in the cluster: its state and the chart and values it was installed with. */
export interface ObservedAddon {
  name: string;
  chart: string;
  declaredVersion: string;
  /** The values the HelmChart carries. */
  values: Record<string, unknown>;
  helmChart: KubeObject | null;
  /** The release Secrets of its target namespace (any release; filtered here). */
  releaseSecrets: KubeObject[];
  release: string;
}

/**
 * installed: the latest revision is deployed with the declared version and values; failed: the HelmChart's Failed
 * condition is True (its message is helm's); removing: the HelmChart is being deleted; installing otherwise.
 */
export function addonStatus(o: ObservedAddon): AddonStatus {
  const releases = releasesOf(o.releaseSecrets, o.release);
  const deployed = releases.find((r) => r.info?.status === 'deployed');
  const installedVersion = deployed?.chart?.metadata?.version;
  const base = { name: o.name, chart: o.chart, declaredVersion: o.declaredVersion, ...(installedVersion ? { installedVersion } : {}) };
  if (o.helmChart?.metadata.deletionTimestamp) return { ...base, state: 'removing', message: `${o.release} is being uninstalled` };
  const failed = o.helmChart ? conditionsOf(o.helmChart).find((c) => c.type === 'Failed' && c.status === 'True') : undefined;
  const latest = releases[0];
  const current =
    latest !== undefined &&
    latest.info?.status === 'deployed' &&
    latest.chart?.metadata?.version === o.declaredVersion &&
    (latest.config === undefined || stableJson(latest.config) === stableJson(o.values));
  if (current) return { ...base, state: 'installed', message: latest.info?.description ?? `${o.chart} ${o.declaredVersion} deployed` };
  if (failed) return { ...base, state: 'failed', message: failed.message || failed.reason || `installing ${o.chart} ${o.declaredVersion} failed` };
  if (!o.helmChart) return { ...base, state: 'installing', message: `waiting for the HelmChart ${o.release}` };
  const job = (o.helmChart['status'] as { jobName?: string } | undefined)?.jobName;
  return {
    ...base,
    state: 'installing',
    message: `${installedVersion ? `upgrading ${installedVersion} -> ` : 'installing '}${o.declaredVersion}${job ? ` (Job ${job})` : ''}`,
  };
}

/**
 * An add-on a managed service installed at creation (CMK: as Helm releases of its own naming): found by its chart's
 * name among the cluster's release Secrets, reported from its latest revision. It is the provider's, so it is never
 * `failed` on kubeplane's account, only shown.
 */
export function providerAddonStatus(name: string, chart: string, releaseSecrets: KubeObject[]): AddonStatus {
  const latest = releaseSecrets
    .filter((s) => s.metadata.labels?.['owner'] === 'helm')
    .map(decodeRelease)
    .filter((r): r is HelmRelease => r !== null && r.chart?.metadata?.name === chart)
    .sort((a, b) => b.version - a.version || (b.info?.last_deployed ?? '').localeCompare(a.info?.last_deployed ?? ''))[0];
  const installedVersion = latest?.chart?.metadata?.version;
  const base = { name, chart, declaredVersion: installedVersion ?? '', ...(installedVersion ? { installedVersion } : {}) };
  if (!latest) return { ...base, state: 'installing', message: 'installed by the managed service at creation; its Helm release is not visible yet' };
  const status = latest.info?.status ?? 'unknown';
  return {
    ...base,
    state: status === 'deployed' ? 'installed' : 'installing',
    message: `installed by the managed service at creation (release ${latest.namespace ?? '?'}/${latest.name}, ${status}); upgraded as the provider documents`,
  };
}
