// Crusoe Managed Kubernetes clusters: the versions offered, clusters created and deleted by operations (with the
// firewall rules CMK adds), their admin credentials, and their AutoClusters settings.
import { compareCmkVersions, CMK_NFS_CONTROL_PLANE_IMAGES, parseCmkVersion } from '@kubeplane/sdk/internal';
import { EmulatorError, type Json, reply } from '../emulator/index.js';
import { findChart } from '../kubernetes/chart-repositories.js';
import type { ServiceRelease } from '../kubernetes/vm-source.js';
import { CMK_ADDON_IDS, CMK_CLUSTER_VERSIONS, CMK_NODE_POOL_VERSIONS } from './catalog.js';
import { CMK_API_PORT, cmkApiHost, issueCmkPki } from './cmk-pki.js';
import { badRequest, conflict, notFound } from './dialect.js';
import { CRUSOE_LATENCY, type Cluster, type FwRule, type Subnet } from './model.js';
import { type CrusoeRouter, idOf } from './router.js';
import type { CrusoeWorld } from './world.js';

const REMEDIATION_ISSUES = ['XID_74', 'XID_79', 'GPU_FELL_OFF_THE_BUS', 'HCA_FELL_OFF_THE_BUS', 'VM_NOT_RUNNING'] as const;

function versions(): Json {
  const details = (v: string) => {
    const [mm, build] = v.split('-cmk.');
    return { MajorMinorVersion: mm?.split('.').slice(0, 2).join('.'), PatchVersion: mm?.split('.')[2], BuildVersion: build };
  };
  return {
    kubernetes_cluster_versions: CMK_CLUSTER_VERSIONS.map((v) => ({
      cluster_version_name: v,
      tags: [],
      supported_features: ['oidc', ...(autoclusters(v) ? ['autoclusters'] : [])],
      version_details: details(v),
    })),
    kubernetes_node_pool_versions: CMK_NODE_POOL_VERSIONS.map((v) => ({
      node_pool_version_name: v,
      tags: v.endsWith('-gb200') ? ['gb200'] : [],
      supported_features: ['node_taints', 'ephemeral_storage_for_containerd'],
      version_details: details(v),
    })),
  };
}

function autoclusters(version: string): boolean {
  const min: Record<string, number> = { '1.33': 20, '1.32': 22, '1.31': 24 };
  const m = /^(\d+\.\d+)\.\d+-cmk\.(\d+)/.exec(version);
  return !!m && m[1] !== undefined && min[m[1]] !== undefined && Number(m[2]) >= (min[m[1]] ?? Infinity);
}

/**
 * The crusoe-csi-driver chart a CMK cluster version comes with. seeds/cmk-addons.txt: the control-plane images
 * 1.33.4-cmk.15, 1.32.7-cmk.18 and 1.31.7-cmk.21 "include CSI v0.10.3+"; Crusoe does not publish what older ones carry,
 * so the sandbox gives its 1.30 builds 0.6.2 (before the v0.7.0 key-path change) and its other older builds 0.9.0.
 */
export function cmkCsiChartVersion(version: string): string {
  const v = parseCmkVersion(version);
  if (!v) return '0.10.3';
  const nfs = CMK_NFS_CONTROL_PLANE_IMAGES[v.minorVersion];
  const nfsBuild = nfs ? parseCmkVersion(nfs) : undefined;
  if ((nfsBuild && compareCmkVersions(v, nfsBuild) >= 0) || v.minor > 33) return '0.10.3';
  return v.minor <= 30 ? '0.6.2' : '0.9.0';
}

/**
 * The Helm releases CMK installs its add-ons as, at creation (seeds/cmk-addons.txt: never auto-upgraded; crusoe-notes
 * §3.2: the CSI chart in crusoe-system, reading the `cmk-<cluster>` Secret). Release names and the operators' and
 * autoscaler's chart versions are the sandbox's choice: Crusoe does not publish them.
 */
export function cmkAddonReleases(c: Cluster): ServiceRelease[] {
  const out: ServiceRelease[] = [];
  const secret = `cmk-${c.name}`;
  for (const id of c.addOns) {
    if (id === 'crusoe_csi') {
      const version = cmkCsiChartVersion(c.version);
      const found = findChart('https://crusoecloud.github.io/crusoe-csi-driver-helm-charts/charts', 'crusoe-csi-driver', version);
      out.push({
        chart: 'crusoe-csi-driver',
        version,
        appVersion: 'found' in found ? found.found.appVersion : '',
        release: 'crusoe-csi-driver',
        namespace: 'crusoe-system',
        values: { crusoe: { secrets: { crusoeApiKeys: { secretName: secret, accessKeyPath: 'CRUSOE_ACCESS_KEY', secretKeyPath: 'CRUSOE_SECRET_KEY' } } } },
        render: true,
      });
    } else if (id === 'nvidia_gpu_operator')
      out.push({
        chart: 'gpu-operator',
        version: 'v25.3.2',
        appVersion: 'v25.3.2',
        release: 'gpu-operator',
        namespace: 'nvidia-gpu-operator',
        values: {},
        render: true,
      });
    else if (id === 'nvidia_network_operator')
      out.push({
        chart: 'network-operator',
        version: '25.4.0',
        appVersion: 'v25.4.0',
        release: 'network-operator',
        namespace: 'nvidia-network-operator',
        values: {},
        render: true,
      });
    else if (id === 'cluster_autoscaler')
      // Its Deployment is the one bootstrapCmk makes (args without --nodes): the release is recorded, not rendered.
      out.push({
        chart: 'cluster-autoscaler',
        version: '9.50.1',
        appVersion: '1.30.3',
        release: 'cluster-autoscaler',
        namespace: 'crusoe-system',
        values: { cloudProvider: 'crusoecloud', envFromSecret: secret },
        render: false,
      });
  }
  return out;
}

/**
 * A cluster's pod and Service ranges when the request names none. Crusoe does not document its defaults; the API's
 * examples give 10.233.0.0/18 for both fields, and these are the two halves Kubespray's defaults cut from 10.233.0.0/17
 * (kube_service_addresses 10.233.0.0/18, kube_pods_subnet 10.233.64.0/18), with kube-controller-manager's /24 a node.
 * Unsourced for CMK itself: the ranges are what a cluster reports, so a client reads them instead of assuming them.
 */
export const CMK_DEFAULT_NETWORK = { clusterCidr: '10.233.64.0/18', serviceRange: '10.233.0.0/18', nodeCidrMaskSize: 24 } as const;

/** The ranges a cluster reports: its own, or the defaults. */
export function cmkNetwork(c: Cluster): { clusterCidr: string; serviceRange: string; nodeCidrMaskSize: number } {
  return {
    clusterCidr: c.clusterCidr ?? CMK_DEFAULT_NETWORK.clusterCidr,
    serviceRange: c.serviceRange ?? CMK_DEFAULT_NETWORK.serviceRange,
    nodeCidrMaskSize: c.nodeCidrMaskSize ?? CMK_DEFAULT_NETWORK.nodeCidrMaskSize,
  };
}

function cmkNetworkJson(c: Cluster): Json {
  const n = cmkNetwork(c);
  return { cluster_cidr: n.clusterCidr, service_cluster_ip_range: n.serviceRange, node_cidr_mask_size: n.nodeCidrMaskSize };
}

/** An IPv4 range in CIDR notation of a request's `field`, or a bad request naming it. */
function cidrOf(body: Json, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === '') return undefined;
  const m = typeof v === 'string' ? /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(v) : null;
  if (!m || m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 32)
    throw badRequest(`${field} must be an IPv4 range in CIDR notation, got ${JSON.stringify(v)}`);
  return String(v);
}

export function clusterJson(w: CrusoeWorld, c: Cluster): Json {
  return {
    id: c.id,
    name: c.name,
    project_id: w.projectId,
    location: c.location,
    version: c.version,
    configuration: 'ha',
    state: c.state,
    subnet_id: c.subnetId,
    dns_name: `${c.name}.crusoecloudcompute.com`,
    add_ons: c.addOns,
    node_pools: w.pools.filter((p) => p.clusterId === c.id).map((p) => p.id),
    private: c.private,
    ...cmkNetworkJson(c),
    kubelogin_args: {},
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}

/** The four rules CMK creates with a cluster (cmk-cluster-details.txt), in the cluster subnet's VPC. */
export function addCmkRules(w: CrusoeWorld, c: Cluster, subnet: Subnet): void {
  const short = c.id.slice(-8);
  const rules: Array<[string, string[], string]> = [
    [`cmk-cp-api-access-cp-${short}`, ['6443'], '0.0.0.0/0'],
    [`cmk-cp-metrics-access-cp-${short}`, ['24224'], subnet.cidr],
    [`cmk-cp-fluent-bit-access-cp-${short}`, ['24224'], subnet.cidr],
    [`cmk-cp-ssh-access-cp-${short}`, ['22'], '192.0.2.0/24'],
  ];
  for (const [name, ports, source] of rules) {
    const r: FwRule = {
      id: w.uuid(),
      name,
      networkId: subnet.networkId,
      action: 'allow',
      direction: 'ingress',
      protocols: ['tcp'],
      sources: [{ cidr: source }],
      sourcePorts: [],
      destinations: [{ resource_id: c.id }],
      destinationPorts: ports,
      state: 'active',
      isDefault: false,
      owner: c.name,
    };
    w.firewallRules.set(r.id, r);
  }
}

/** GetCredentials (auth_type=admin_cert): a kubeconfig with the admin certificate, and its parts. */
function credentials(c: Cluster): Json {
  const server = `https://${cmkApiHost(c.name)}:${CMK_API_PORT}`;
  const { caPem, adminCertPem, adminKeyPem } = c.pki;
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const kubeConfig = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${c.name}-admin`,
    'clusters:',
    `- name: ${c.name}`,
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    `- name: ${c.name}-admin`,
    '  user:',
    `    client-certificate-data: ${b64(adminCertPem)}`,
    `    client-key-data: ${b64(adminKeyPem)}`,
    'contexts:',
    `- name: ${c.name}-admin`,
    '  context:',
    `    cluster: ${c.name}`,
    `    user: ${c.name}-admin`,
    '',
  ].join('\n');
  return {
    kube_config: kubeConfig,
    cluster_name: c.name,
    cluster_address: server,
    cluster_ca_certificate: caPem,
    user_name: 'admin',
    user_client_certificate: adminCertPem,
    user_client_key: adminKeyPem,
  };
}

function autoclustersConfig(w: CrusoeWorld, c: Cluster): Json {
  return {
    fallback_to_project_reservations: c.fallback,
    remediation_configs: REMEDIATION_ISSUES.map((issue) => ({
      issue_name: issue,
      default_action: 'REPLACE_NODE',
      ...(c.remediation[issue] ? { user_override: c.remediation[issue] } : {}),
      effective_action: c.remediation[issue] ?? 'REPLACE_NODE',
    })),
    updated_at: w.iso(w.now()),
  };
}

export function cmkClusterRoutes(r: CrusoeRouter, w: CrusoeWorld): void {
  const family = 'kubernetes/clusters';
  const requireCluster = (id: string) => w.clusters.require(id, () => notFound(`Kubernetes cluster ${id} not found`));
  /** The cluster of an AutoClusters request, when its version has AutoClusters. */
  const withAutoclusters = (id: string) => {
    const c = requireCluster(id);
    if (!autoclusters(c.version)) throw new EmulatorError(400, 'failed_precondition', `AutoClusters needs a newer cluster version than ${c.version}`);
    return c;
  };
  const notModelled = (method: string, what: string) => badRequest(`${method} ${what} on a cluster is not modelled by the sandbox`);

  r.project('GET /kubernetes/versions', () => reply(versions()));
  r.project('GET /kubernetes/clusters', ({ query }) => {
    const name = query.get('cluster_name');
    return reply({ items: w.clusters.filter((c) => !name || c.name === name).map((c) => clusterJson(w, c)) });
  });
  r.project('POST /kubernetes/clusters', async ({ body }) => {
    const checked = () => {
      const location = w.location(body['location']);
      const version = String(body['version'] ?? '');
      if (!CMK_CLUSTER_VERSIONS.includes(version)) throw badRequest(`unsupported cluster version "${version}"; available: ${CMK_CLUSTER_VERSIONS.join(', ')}`);
      const addOns = Array.isArray(body['add_ons']) ? (body['add_ons'] as unknown[]).map(String) : [];
      const unknown = addOns.filter((a) => !(CMK_ADDON_IDS as readonly string[]).includes(a));
      if (unknown.length) throw badRequest(`unknown add-ons: ${unknown.join(', ')}`);
      const subnet = typeof body['subnet_id'] === 'string' ? w.subnets.get(body['subnet_id']) : w.defaultSubnet(location);
      if (!subnet || subnet.location !== location) throw badRequest(`subnet ${String(body['subnet_id'])} is not in ${location}`);
      const clusterCidr = cidrOf(body, 'cluster_cidr');
      const serviceRange = cidrOf(body, 'service_cluster_ip_range');
      const mask = body['node_cidr_mask_size'];
      if (mask !== undefined && (typeof mask !== 'number' || !Number.isInteger(mask) || mask < 16 || mask > 28))
        throw badRequest(`node_cidr_mask_size must be an integer from 16 to 28, got ${JSON.stringify(mask)}`);
      const network = {
        ...(clusterCidr ? { clusterCidr } : {}),
        ...(serviceRange ? { serviceRange } : {}),
        ...(typeof mask === 'number' ? { nodeCidrMaskSize: mask } : {}),
      };
      return { location, version, addOns, subnet, network, name: w.name(body['name'], w.clusters.values(), 'Kubernetes cluster') };
    };
    const request = checked();
    // The control plane's keys take real time: generated before anything changes, then the request is checked
    // again (another may have taken the name meanwhile) and applied at once, so ids keep the order of requests.
    const pki = await issueCmkPki({ seed: `${w.projectId}/${request.name}`, name: request.name, version: request.version, nowMs: w.now() });
    const { location, version, addOns, subnet, name, network } = checked();
    const c: Cluster = {
      id: w.uuid(),
      name,
      location,
      version,
      subnetId: subnet.id,
      addOns,
      state: 'STATE_PROVISIONING',
      private: body['private'] === true,
      ...network,
      remediation: {},
      fallback: false,
      runningAt: w.now() + CRUSOE_LATENCY.cmkClusterCreate,
      pki,
    };
    w.clusters.set(c.id, c);
    return reply(w.startOperation(family, c.id, CRUSOE_LATENCY.cmkClusterCreate, { kind: 'cluster-created', id: c.id }));
  });
  r.project('GET /kubernetes/clusters/{id}', (call) => reply(clusterJson(w, requireCluster(idOf(call)))));
  r.project('DELETE /kubernetes/clusters/{id}', (call) => {
    const c = requireCluster(idOf(call));
    if (w.pools.find((p) => p.clusterId === c.id)) throw conflict('failed_precondition', `cluster ${c.name} still has node pools; delete them first`);
    if (c.state === 'STATE_DELETING') return reply(w.startOperation(family, c.id, 1_000, { kind: 'none' }));
    c.state = 'STATE_DELETING';
    return reply(w.startOperation(family, c.id, CRUSOE_LATENCY.cmkClusterDelete, { kind: 'cluster-deleted', id: c.id }));
  });
  r.otherMethods('/kubernetes/clusters/{id}', (call) => {
    requireCluster(idOf(call));
    return notModelled(call.method, '');
  });
  r.project('POST /kubernetes/clusters/{id}/get-credentials', (call) => {
    const { query } = call;
    const c = requireCluster(idOf(call));
    if (c.state !== 'STATE_RUNNING') throw conflict('failed_precondition', `cluster ${c.name} is ${c.state}`);
    if (query.get('auth_type') && query.get('auth_type') !== 'admin_cert') throw badRequest('the sandbox models auth_type=admin_cert only');
    return reply(credentials(c));
  });
  r.otherMethods('/kubernetes/clusters/{id}/get-credentials', (call) => {
    requireCluster(idOf(call));
    return notModelled(call.method, 'get-credentials');
  });
  r.project('GET /kubernetes/clusters/{id}/autoclusters/config', (call) => reply(autoclustersConfig(w, withAutoclusters(idOf(call)))));
  r.project('PATCH /kubernetes/clusters/{id}/autoclusters/config', (call) => {
    const { body } = call;
    const c = withAutoclusters(idOf(call));
    if (typeof body['fallback_to_project_reservations'] === 'boolean') c.fallback = body['fallback_to_project_reservations'];
    for (const o of Array.isArray(body['set_remediation_overrides']) ? (body['set_remediation_overrides'] as Json[]) : []) {
      const issue = String(o['issue_name']);
      if (!(REMEDIATION_ISSUES as readonly string[]).includes(issue)) throw badRequest(`unknown issue ${issue}`);
      if (o['action'] !== 'REPLACE_NODE' && o['action'] !== 'OFF') throw badRequest('action must be REPLACE_NODE or OFF');
      c.remediation[issue] = o['action'];
    }
    for (const issue of Array.isArray(body['remove_remediation_overrides']) ? (body['remove_remediation_overrides'] as unknown[]) : [])
      delete c.remediation[String(issue)];
    return reply(autoclustersConfig(w, c));
  });
  r.otherMethods('/kubernetes/clusters/{id}/autoclusters/config', (call) => {
    withAutoclusters(idOf(call));
    return notModelled(call.method, 'autoclusters');
  });
}
