// Kubeconfig files as the stand-ins read and write them (client-go's clientcmd subset kubeplane uses): one cluster,
// one user with embedded or file-referenced client certificate, or a bearer token.
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';

export interface KubeCredentials {
  server: string;
  caPem: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
}

type Json = Record<string, unknown>;

function asObject(v: unknown): Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
}

function named(list: unknown, name: unknown): Json {
  const items = Array.isArray(list) ? list.map(asObject) : [];
  return items.find((i) => i['name'] === name) ?? items[0] ?? {};
}

function data(o: Json, key: string): string | undefined {
  const inline = o[`${key}-data`];
  if (typeof inline === 'string') return Buffer.from(inline, 'base64').toString('utf8');
  const file = o[key];
  return typeof file === 'string' ? readFileSync(file, 'utf8') : undefined;
}

export function parseKubeconfig(text: string): KubeCredentials {
  const doc = asObject(parse(text));
  const context = asObject(named(doc['contexts'], doc['current-context'])['context']);
  const cluster = asObject(named(doc['clusters'], context['cluster'])['cluster']);
  const user = asObject(named(doc['users'], context['user'])['user']);
  const server = cluster['server'];
  if (typeof server !== 'string' || server.length === 0) throw new Error('invalid configuration: no server found for cluster');
  const token = user['token'];
  const certPem = data(user, 'client-certificate');
  const keyPem = data(user, 'client-key');
  return {
    server,
    caPem: data(cluster, 'certificate-authority') ?? '',
    ...(certPem ? { certPem } : {}),
    ...(keyPem ? { keyPem } : {}),
    ...(typeof token === 'string' ? { token } : {}),
  };
}

export function readKubeconfig(path: string): KubeCredentials {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new Error(`stat ${path}: no such file or directory`);
  }
  return parseKubeconfig(text);
}

/** A kubeconfig as kubeadm writes them (admin.conf, kubelet.conf, ...): data embedded, or the kubelet's rotated file. */
export function renderKubeconfig(input: {
  clusterName: string;
  server: string;
  caPem: string;
  user: string;
  certPem?: string;
  keyPem?: string;
  certFile?: string;
  token?: string;
}): string {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const user: Json = {};
  if (input.certFile) {
    user['client-certificate'] = input.certFile;
    user['client-key'] = input.certFile;
  } else if (input.certPem && input.keyPem) {
    user['client-certificate-data'] = b64(input.certPem);
    user['client-key-data'] = b64(input.keyPem);
  }
  if (input.token) user['token'] = input.token;
  const context = `${input.user}@${input.clusterName}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: input.clusterName, cluster: { 'certificate-authority-data': b64(input.caPem), server: input.server } }],
    contexts: [{ name: context, context: { cluster: input.clusterName, user: input.user } }],
    'current-context': context,
    preferences: {},
    users: [{ name: input.user, user }],
  });
}
