// The add-ons step: the managed service's own settings (CMK), then the in-cluster install mechanism
// (k3s-io/helm-controller), each add-on's credentials Secret, one HelmChart per declared add-on, the removal of
// HelmCharts no longer declared; then each add-on's state, read back from the cluster, recorded in the cluster's
// status. It waits while an add-on installs, fails with helm's message when one failed, goes on when all are installed.
import { CATALOG, compareChartVersions, isChartAddon, type ChartAddonId } from '../../addons/catalog.js';
import {
  type ReleasePlace,
  HELM_CHART_API_VERSION,
  HELM_CONTROLLER_NAMESPACE,
  helmChartObject,
  helmControllerObjects,
  ADDON_LABEL,
  MANAGED_SELECTOR,
} from '../../addons/helm-controller.js';
import { findProviderRelease, providerUpgradeProblem } from '../../addons/provider-releases.js';
import { addonStatus, providerAddonStatus, type AddonStatus } from '../../addons/state.js';
import {
  adapterAddressOf,
  addonValues,
  addonVersion,
  AUTOSCALER_ADAPTER,
  autoscalerCloudConfig,
  CMK_AUTOSCALER_RELEASE,
  mergeValues,
} from '../../addons/values.js';
import { newAutoscalerTls } from '../autoscaler-tls.js';
import { createHash } from 'node:crypto';
import { isKubeplaneError, KubeplaneError } from '../../errors.js';
import { stableJson } from '../../stable-json.js';
import type { AddonDef } from '../../manifest/schema.js';
import { PROVIDER_TYPE_INFO } from '../../manifest/provider-types.js';
import type { ClusterSpec } from '../../model/types.js';
import { CMK_ADDON_SECRET } from '../../providers-data/crusoe.js';
import { Redacted } from '../../redacted.js';
import { SDK_VERSION } from '../../version.js';
import type { KubernetesApi } from '../ports/kubernetes.js';
import { desiredOf } from './common.js';
import { api } from './kubernetes-api.js';
import { configureManaged, isManaged, providerAddonIds } from './managed.js';
import { next, type StepContext, type StepDefinition, type StepResult } from './types.js';

/** How often the step looks again while a chart installs (a helm Job takes tens of seconds to minutes). */
const INSTALL_POLL_SECONDS = 20;
/** How soon to look again for a CRD the step has just applied to be established. */
const CRD_POLL_SECONDS = 5;

type ChartAddon = AddonDef & { name: ChartAddonId };

/** Add-ons that Crusoe Managed Kubernetes vends: on a CMK cluster their credential is its `cmk-<cluster>` Secret. */
const CRUSOE_VENDED: ReadonlySet<string> = new Set(['crusoe_csi', 'nvidia_gpu_operator', 'nvidia_network_operator', 'cluster_autoscaler']);

/**
 * The chart add-ons kubeplane installs on this cluster. Self-managed: Cilium always (bootstrap installs it at init;
 * its HelmChart takes the release over so it upgrades like the rest). Managed (CMK): the provider runs the CNI, and
 * the add-ons CMK installed at creation stay the provider's.
 */
export function installedByKubeplane(spec: ClusterSpec, createdByProvider: readonly string[]): ChartAddon[] {
  const declared = spec.addons.filter((a): a is ChartAddon => isChartAddon(a.name));
  if (isManaged(spec)) return declared.filter((a) => a.name !== 'cilium' && !createdByProvider.includes(a.name));
  const cilium = declared.find((a) => a.name === 'cilium') ?? { name: 'cilium' as const };
  return [cilium, ...declared.filter((a) => a.name !== 'cilium')];
}

/** The add-ons the managed service installed when it created the cluster (recorded then; older records: the built spec's). */
function createdByProvider(ctx: StepContext): string[] {
  const m = ctx.record.ledger.managed;
  if (!m) return [];
  return m.addonsAtCreation ?? providerAddonIds(ctx.record.current ?? desiredOf(ctx.record));
}

/** The API server as the nodes reach it: the load balancer's name, or the reserved IP. */
function apiServerOf(ctx: StepContext): { host: string; port: number } | undefined {
  const e = desiredOf(ctx.record).apiEndpoint;
  if (e.kind === 'load-balancer') return { host: e.host, port: e.port };
  if (e.kind === 'reserved-ip' && ctx.record.ledger.reservedIp) return { host: ctx.record.ledger.reservedIp.ip, port: e.port };
  return undefined;
}

/**
 * The keys of CMK's `cmk-<cluster>` Secret (the scoped API token CMK makes for its add-ons, cmk-cluster-details.txt),
 * read only: kubeplane's add-ons get a copy in a Secret of their own, and CMK's stays as CMK wrote it.
 */
async function cmkToken(ctx: StepContext, k8s: KubernetesApi, addon: ChartAddon): Promise<[Redacted<string>, Redacted<string>]> {
  const m = ctx.record.ledger.managed;
  const name = CMK_ADDON_SECRET.name(m?.name ?? '');
  const cmk = await k8s.getSecret(CMK_ADDON_SECRET.namespace, name);
  const access = cmk?.[CMK_ADDON_SECRET.accessKey];
  const secret = cmk?.[CMK_ADDON_SECRET.secretKey];
  if (!access || !secret) {
    throw new KubeplaneError(
      'invalid',
      `add-on ${addon.name}: the CMK Secret ${CMK_ADDON_SECRET.namespace}/${name} with ${CMK_ADDON_SECRET.accessKey} and ` +
        `${CMK_ADDON_SECRET.secretKey} is missing; CMK creates it with the cluster (its scoped API token), and kubeplane only reads it`,
      { resource: desiredOf(ctx.record).sourcePath },
    );
  }
  return [access, secret];
}

/** Where kubeplane releases an add-on it installs: the catalog's place, or on CMK Crusoe's autoscaler's. */
function placeOf(spec: ClusterSpec, addon: ChartAddon): ReleasePlace {
  if (addon.name === 'cluster_autoscaler' && isManaged(spec))
    return { release: CMK_AUTOSCALER_RELEASE.release, targetNamespace: CMK_AUTOSCALER_RELEASE.namespace };
  return { release: CATALOG[addon.name].release, targetNamespace: CATALOG[addon.name].targetNamespace };
}

/** One HelmChart kubeplane keeps: an add-on it installs, or a release the managed service installed that it upgrades. */
interface ChartItem {
  addon: ChartAddon;
  place: ReleasePlace;
  version: string;
  values: Record<string, unknown>;
  /** The service's release: its credentials and workloads are the service's, kubeplane changes only the chart version and values. */
  providerRelease: boolean;
}

/** The credential keys an add-on's Secret holds, as the chart reads them; null when it needs none. */
async function credentialData(ctx: StepContext, k8s: KubernetesApi, addon: ChartAddon): Promise<Record<string, Redacted<string>> | null> {
  const spec = desiredOf(ctx.record);
  const entry = CATALOG[addon.name];
  const m = ctx.record.ledger.managed;
  if (addon.name === 'cluster_autoscaler' && isManaged(spec) && m) {
    // Crusoe's autoscaler reads its keys and its cluster from env (crusoe-notes §3.3): CMK's scoped token, copied.
    const [access, secret] = await cmkToken(ctx, k8s, addon);
    return {
      [CMK_ADDON_SECRET.accessKey]: access,
      [CMK_ADDON_SECRET.secretKey]: secret,
      CRUSOE_CLUSTER_ID: Redacted.of(m.id),
      ...(m.projectId ? { CRUSOE_PROJECT_ID: Redacted.of(m.projectId) } : {}),
    };
  }
  if (addon.name === 'cluster_autoscaler') {
    if (!addon.secretRef || !ctx.addonCredentials) return null;
    const keys = await ctx.addonCredentials(addon.secretRef, [{ key: 'token', required: true }], `add-on ${addon.name}`);
    return keys['token'] ? { token: keys['token'] } : null;
  }
  const credential = entry.credential;
  if (!credential) return null;
  if (isManaged(spec) && m && CRUSOE_VENDED.has(addon.name)) {
    // CMK's own scoped token for Crusoe add-ons (`cmk-<cluster>`), copied under the chart's keys into the add-on's Secret.
    const [access, secret] = await cmkToken(ctx, k8s, addon);
    return { [credential.keys['accesskey'] ?? 'accesskey']: access, [credential.keys['secretkey'] ?? 'secretkey']: secret };
  }
  const ref = addon.secretRef;
  if (!ref)
    throw new KubeplaneError(
      'invalid',
      `add-on ${addon.name} of cluster ${spec.name} has no secretRef; name its own ` +
        `${credential.cloud} credential, or {fromProvider: <provider>} to use a provider's`,
      { resource: spec.sourcePath },
    );
  if (!ctx.addonCredentials)
    throw new KubeplaneError('invalid', `add-on ${addon.name}: this runtime cannot read add-on credentials`, { resource: spec.sourcePath });
  const keys = PROVIDER_TYPE_INFO[credential.cloud].credentials;
  let resolved: Record<string, Redacted<string>>;
  if (ref.fromProvider !== undefined) {
    const def = (ctx.project.manifest ?? ctx.record.lastManifest)?.providers.find((p) => p.name === ref.fromProvider);
    if (!def) throw new KubeplaneError('invalid', `add-on ${addon.name}: provider "${ref.fromProvider}" is not in the manifest`, { resource: spec.sourcePath });
    resolved = await ctx.addonCredentials(def.secretRef, keys, `add-on ${addon.name} (credentials of provider ${def.name})`, credential.cloud);
  } else {
    const { fromProvider: _none, ...plain } = ref;
    resolved = await ctx.addonCredentials(plain, keys, `add-on ${addon.name}`, credential.cloud);
  }
  const out: Record<string, Redacted<string>> = {};
  for (const [ours, theirs] of Object.entries(credential.keys)) {
    const value = resolved[ours];
    if (!value) throw new KubeplaneError('auth', `add-on ${addon.name}: credential "${ours}" is missing from its secretRef`, { resource: spec.sourcePath });
    out[theirs] = value;
  }
  return out;
}

const addonLabels = (id: string) => ({ 'app.kubernetes.io/managed-by': 'kubeplane', [ADDON_LABEL]: id });

/**
 * The cluster autoscaler's adapter. In the cluster: its token Secret, cloud-config, Deployment and Service. Outside it
 * (config.adapterAddress): only the cloud-config, with the client certificate and CA of the cluster's own autoscaler CA,
 * issued once and kept in the SecretStore (autoscaler-tls.ts); no adapter runs in the cluster.
 */
async function applyAutoscalerAdapter(
  ctx: StepContext,
  k8s: KubernetesApi,
  spec: ClusterSpec,
  addon: ChartAddon,
  token: Record<string, Redacted<string>> | null,
): Promise<void> {
  const { name, namespace, port } = AUTOSCALER_ADAPTER;
  const labels = { ...addonLabels(addon.name), app: name };
  const remote = adapterAddressOf(addon);
  if (remote !== undefined) {
    const tls =
      (await ctx.secrets.autoscalerTls()) ??
      (await ctx.secrets.issueAutoscalerTls(await newAutoscalerTls(spec.name, ctx.keyPairs, { random: ctx.random, now: new Date(ctx.now) })));
    const { cert, key, cacert } = AUTOSCALER_ADAPTER.tlsFiles;
    await k8s.applySecret(
      namespace,
      AUTOSCALER_ADAPTER.cloudConfigSecret,
      {
        'cloud-config': Redacted.of(autoscalerCloudConfig(remote)),
        [cert]: Redacted.of(tls.clientCertificate),
        [key]: tls.clientKey,
        [cacert]: Redacted.of(tls.caCertificate),
      },
      addonLabels(addon.name),
    );
    // An adapter the cluster ran before the address was named is no longer asked.
    await k8s.deleteObject('apps/v1', 'Deployment', namespace, name);
    await k8s.deleteObject('v1', 'Service', namespace, name);
    await k8s.deleteSecret(namespace, AUTOSCALER_ADAPTER.tokenSecret);
    return;
  }
  await k8s.applySecret(namespace, AUTOSCALER_ADAPTER.cloudConfigSecret, { 'cloud-config': Redacted.of(autoscalerCloudConfig()) }, addonLabels(addon.name));
  if (token) await k8s.applySecret(namespace, AUTOSCALER_ADAPTER.tokenSecret, token, addonLabels(addon.name));
  const apiUrl = typeof addon.config?.['apiUrl'] === 'string' ? addon.config['apiUrl'] : '';
  await k8s.applyObject({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [
            {
              name: 'adapter',
              image: AUTOSCALER_ADAPTER.image(SDK_VERSION),
              ports: [{ name: 'grpc', containerPort: port }],
              env: [
                { name: 'KUBEPLANE_API_URL', value: apiUrl },
                { name: 'KUBEPLANE_PROJECT', value: spec.project },
                { name: 'KUBEPLANE_CLUSTER', value: spec.name },
                { name: 'KUBEPLANE_TOKEN', valueFrom: { secretKeyRef: { name: AUTOSCALER_ADAPTER.tokenSecret, key: 'token', optional: true } } },
              ],
            },
          ],
        },
      },
    },
  });
  await k8s.applyObject({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace, labels },
    spec: { selector: { app: name }, ports: [{ name: 'grpc', port, targetPort: port, protocol: 'TCP' }] },
  });
}

/** Whether the controller can reconcile: its Deployment exists and has a ready replica. */
async function controllerRunning(k8s: KubernetesApi): Promise<boolean> {
  const d = await k8s.getObject('apps/v1', 'Deployment', HELM_CONTROLLER_NAMESPACE, 'helm-controller');
  const status = d?.['status'] as { readyReplicas?: number } | undefined;
  return (status?.readyReplicas ?? 0) > 0;
}

function sameStatus(a: AddonStatus | undefined, b: AddonStatus): boolean {
  return !!a && a.state === b.state && a.installedVersion === b.installedVersion && a.declaredVersion === b.declaredVersion && a.message === b.message;
}

export const addons: StepDefinition = {
  phase: 'addons',
  // A GPU operator's first install (driver containers) takes many minutes; a chart that does not settle in an hour is reported.
  timeoutSeconds: 3600,
  timeoutMessage: (r) =>
    `the add-ons of ${r.name} were not all installed within an hour; see kubeplane status and the helm-install Jobs in ${HELM_CONTROLLER_NAMESPACE}`,
  async run(ctx) {
    const spec = desiredOf(ctx.record);
    const k8s = await api(ctx);
    let managedNote = '';
    // The service's settings (CMK's autoscaler limits, AutoClusters): their wait or failure is reported once the
    // add-ons are applied, never before, so it holds up no add-on.
    let managedHeld: Extract<StepResult, { kind: 'wait' | 'failed' }> | null = null;
    if (isManaged(spec)) {
      try {
        const configured = await configureManaged(ctx, k8s);
        if (Array.isArray(configured)) managedNote = configured.length ? `; updated ${configured.join(', ')}` : '';
        else if (configured.kind === 'wait' || configured.kind === 'failed') managedHeld = configured;
      } catch (e) {
        if (!isKubeplaneError(e)) throw e;
        managedHeld = { kind: 'failed', error: e };
      }
    }
    const byProvider = createdByProvider(ctx);
    const wanted = installedByKubeplane(spec, byProvider);
    const existing = await k8s.listObjects(HELM_CHART_API_VERSION, 'HelmChart', HELM_CONTROLLER_NAMESPACE, MANAGED_SELECTOR);
    // The managed service's own add-ons: shown from their Helm releases; upgraded through a HelmChart of kubeplane's
    // against the service's release once the manifest names a newer version (and kept so from then on).
    const declaredByProvider = spec.addons.filter((a): a is ChartAddon => isChartAddon(a.name) && byProvider.includes(a.name));
    const providers: AddonStatus[] = [];
    const problems: string[] = [];
    const items: ChartItem[] = [];
    if (declaredByProvider.length > 0) {
      const releases = await k8s.listObjects('v1', 'Secret', undefined, 'owner=helm');
      for (const a of declaredByProvider) {
        const chart = CATALOG[a.name].chart;
        const release = findProviderRelease(chart, releases);
        const ours = existing.find((c) => c.metadata.labels?.[ADDON_LABEL] === a.name);
        const shown = providerAddonStatus(a.name, chart, releases);
        if (!release) {
          providers.push(shown);
          if (a.version !== undefined)
            problems.push(`add-on ${a.name}: the managed service's ${chart} release is not in the cluster, so there is nothing to upgrade`);
          continue;
        }
        const problem = providerUpgradeProblem(a.name, release.version, a.version, a.config);
        if (problem) {
          providers.push(shown);
          problems.push(problem);
          continue;
        }
        if (!ours && (a.version === undefined || compareChartVersions(a.version, release.version) === 0)) {
          providers.push(shown);
          continue;
        }
        const oursVersion = (ours?.['spec'] as { version?: string } | undefined)?.version;
        items.push({
          addon: a,
          place: { release: release.name, targetNamespace: release.namespace },
          version: a.version ?? oursVersion ?? release.version,
          values: mergeValues(release.serviceValues, a.values ?? {}),
          providerRelease: true,
        });
      }
    }
    const settle = (message: string): StepResult => {
      const failures = [...problems, ...(managedHeld?.kind === 'failed' ? [managedHeld.error.message] : [])];
      if (failures.length > 0)
        return { kind: 'failed', error: new KubeplaneError('invalid', failures.join('; '), { resource: spec.sourcePath, code: 'AddonFailed' }) };
      if (managedHeld?.kind === 'wait') return managedHeld;
      return next(message);
    };
    if (wanted.length === 0 && existing.length === 0 && items.length === 0) {
      ctx.record.status.addons = providers;
      return settle(`no add-ons for kubeplane to install${managedNote}`);
    }
    // 1. The mechanism (idempotent server-side apply; CRDs first so the HelmCharts' kind is served).
    for (const object of helmControllerObjects()) await k8s.applyObject(object);
    // 2. Credentials, 3. HelmCharts.
    const apiServer = apiServerOf(ctx);
    if (!apiServer && wanted.some((a) => a.name === 'cilium')) {
      // Without the API endpoint a Cilium upgrade would drop kube-proxy replacement's route to the API server.
      throw new KubeplaneError('invalid', `cluster ${spec.name}: the API endpoint the nodes use is not recorded, so Cilium's values cannot be built`, {
        resource: spec.sourcePath,
      });
    }
    const ctxValues = { spec, ...(apiServer ? { apiServer } : {}) };
    items.unshift(
      ...wanted.map((addon) => ({
        addon,
        place: placeOf(spec, addon),
        version: addonVersion(addon),
        values: addonValues(addon, ctxValues),
        providerRelease: false,
      })),
    );
    const appliedBefore = ctx.record.ledger.addonSpecs ?? {};
    const appliedNow: Record<string, string> = {};
    const changedNow = new Set<string>();
    for (const item of items) {
      const { addon } = item;
      const entry = CATALOG[addon.name];
      if (!item.providerRelease) {
        const data = await credentialData(ctx, k8s, addon);
        if (addon.name === 'cluster_autoscaler' && isManaged(spec)) {
          if (data) await k8s.applySecret(CMK_AUTOSCALER_RELEASE.namespace, CMK_AUTOSCALER_RELEASE.secret, data, addonLabels(addon.name));
        } else if (addon.name === 'cluster_autoscaler') await applyAutoscalerAdapter(ctx, k8s, spec, addon, data);
        else if (data && entry.credential) await k8s.applySecret(entry.targetNamespace, entry.credential.secretName, data, addonLabels(addon.name));
      }
      const chart = helmChartObject(addon.name, item.version, item.values, item.place);
      try {
        await k8s.applyObject(chart);
      } catch (e) {
        // A CRD just created is served once the API server has established it (seconds): look again shortly.
        if (isKubeplaneError(e) && e.details.code === 'KindNotServed')
          return { kind: 'wait', seconds: CRD_POLL_SECONDS, reason: `waiting for the API server to serve HelmCharts (${e.message})` };
        throw e;
      }
      appliedNow[addon.name] = createHash('sha256').update(stableJson(chart['spec'])).digest('hex').slice(0, 16);
      if (appliedBefore[addon.name] !== appliedNow[addon.name]) changedNow.add(addon.name);
    }
    ctx.record.ledger.addonSpecs = appliedNow;
    // 4. Removals: kubeplane's HelmCharts of add-ons no longer declared (helm-controller uninstalls on delete). One
    // upgrading a service's release is never deleted here: that would uninstall the service's add-on.
    const wantedIds = new Set<string>([...items.map((i) => i.addon.name), ...byProvider]);
    const removing: AddonStatus[] = [];
    for (const chart of existing) {
      const id = chart.metadata.labels?.[ADDON_LABEL] ?? '';
      if (wantedIds.has(id)) continue;
      if (!chart.metadata.deletionTimestamp) {
        await k8s.deleteObject(HELM_CHART_API_VERSION, 'HelmChart', HELM_CONTROLLER_NAMESPACE, chart.metadata.name);
        ctx.emit({ type: 'resource-deleted', kind: 'helm-chart', name: chart.metadata.name });
      }
      if (isChartAddon(id)) await removeAddonExtras(k8s, id, isManaged(spec));
      const still = await k8s.getObject(HELM_CHART_API_VERSION, 'HelmChart', HELM_CONTROLLER_NAMESPACE, chart.metadata.name);
      if (still) {
        const spec_ = chart['spec'] as { chart?: string; version?: string } | undefined;
        removing.push({
          name: id || chart.metadata.name,
          chart: spec_?.chart ?? chart.metadata.name,
          declaredVersion: spec_?.version ?? '',
          state: 'removing',
          message: `${chart.metadata.name} is being uninstalled`,
        });
      }
    }
    // 5. State, as the cluster reports it.
    const running = await controllerRunning(k8s);
    const statuses: AddonStatus[] = [];
    for (const item of items) {
      const { addon, place } = item;
      const entry = CATALOG[addon.name];
      const helmChart = await k8s.getObject(HELM_CHART_API_VERSION, 'HelmChart', HELM_CONTROLLER_NAMESPACE, place.release);
      const releaseSecrets = await k8s.listObjects('v1', 'Secret', place.targetNamespace, `owner=helm,name=${place.release}`);
      let s = addonStatus({
        name: addon.name,
        chart: entry.chart,
        declaredVersion: item.version,
        values: item.values,
        helmChart,
        releaseSecrets,
        release: place.release,
      });
      // Just changed: a Failed condition is the previous spec's until the controller has run this one.
      if (s.state === 'failed' && changedNow.has(addon.name))
        s = { ...s, state: 'installing', message: `applying ${entry.chart} ${s.declaredVersion} (the last attempt, of another spec, failed: ${s.message})` };
      if (item.providerRelease)
        s = { ...s, message: `${s.message} (the managed service's release ${place.targetNamespace}/${place.release}, upgraded by kubeplane)` };
      statuses.push(
        !running && s.state === 'installing'
          ? { ...s, message: `${s.message}; waiting for the helm-controller Deployment in ${HELM_CONTROLLER_NAMESPACE} to run` }
          : s,
      );
    }
    const all = [...providers, ...statuses, ...removing];
    const before = new Map((ctx.record.status.addons ?? []).map((a) => [a.name, a]));
    for (const s of all) {
      if (sameStatus(before.get(s.name), s)) continue;
      ctx.emit({
        type: 'addon',
        name: s.name,
        chart: s.chart,
        declaredVersion: s.declaredVersion,
        ...(s.installedVersion ? { installedVersion: s.installedVersion } : {}),
        state: s.state,
        message: s.message,
      });
    }
    ctx.record.status.addons = all;
    const failed = statuses.filter((s) => s.state === 'failed');
    problems.push(...failed.map((s) => `add-on ${s.name} (${s.chart} ${s.declaredVersion}) failed: ${s.message}`));
    const busy = [...statuses, ...removing].filter((s) => s.state !== 'installed');
    if (problems.length === 0 && busy.length > 0)
      return { kind: 'wait', seconds: INSTALL_POLL_SECONDS, reason: busy.map((s) => `${s.name}: ${s.message}`).join('; ') };
    return settle(`add-ons installed: ${statuses.map((s) => `${s.name} ${s.installedVersion ?? s.declaredVersion}`).join(', ')}${managedNote}`);
  },
};

/** What kubeplane wrote beside an add-on's chart: its credentials Secret, the autoscaler adapter (on CMK: its Secret). */
async function removeAddonExtras(k8s: KubernetesApi, id: ChartAddonId, managed: boolean): Promise<void> {
  const entry = CATALOG[id];
  if (entry.credential) await k8s.deleteSecret(entry.targetNamespace, entry.credential.secretName);
  if (id === 'cluster_autoscaler' && managed) await k8s.deleteSecret(CMK_AUTOSCALER_RELEASE.namespace, CMK_AUTOSCALER_RELEASE.secret);
  else if (id === 'cluster_autoscaler') {
    const { name, namespace } = AUTOSCALER_ADAPTER;
    await k8s.deleteObject('apps/v1', 'Deployment', namespace, name);
    await k8s.deleteObject('v1', 'Service', namespace, name);
    await k8s.deleteSecret(namespace, AUTOSCALER_ADAPTER.tokenSecret);
    await k8s.deleteSecret(namespace, AUTOSCALER_ADAPTER.cloudConfigSecret);
  }
}
