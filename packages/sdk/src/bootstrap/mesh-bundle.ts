// The signed mesh bundle: everything the on-node sync agent acts on as root (WireGuard peers, an upgrade instruction,
// load-balancer nginx configurations, mesh-reader certificates) in one line-based document signed with the cluster's
// Ed25519 mesh key, whose public half every node carries from its user-data. Nothing else in the ConfigMap is read.
//
// The document (ConfigMap kube-system/kubeplane-mesh, key `bundle` = base64 of it, `bundle.sig` = base64 of the
// Ed25519 signature over exactly those bytes, so `openssl pkeyutl -verify -rawin` checks it on the node):
//
//   kubeplane-mesh 1                                        first line, always
//   serial <n>                                              once; goes up with every write, agents refuse a lower one
//   peer <node> <wireguard public key> <overlay ip> <ip:port|host:port|-> <nat|direct>
//   upgrade <x.y.z> <x.y.z-rev> <apply|node> <node> [<node> ...]   at most once
//   lb <load balancer> <base64 of its nginx.conf>
//   cert <load-balancer node> <base64 of its mesh-reader client certificate (PEM)>
//
// Each line matches one of the patterns below exactly; the agent script greps with the very same patterns.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import { Redacted } from '../redacted.js';
import type { PemKeyPair } from './certificate.js';

/** A mesh member as the overlay sees it: public key and addresses, never a private key. */
export interface MeshPeer {
  name: string;
  publicKey: string;
  overlayIp: string;
  endpoint?: string;
  behindNat: boolean;
}

/** The ConfigMap key holding the mesh bundle (base64). */
export const MESH_BUNDLE_KEY = 'bundle';
/** The ConfigMap key holding the bundle's Ed25519 signature (base64). */
export const MESH_BUNDLE_SIGNATURE_KEY = 'bundle.sig';
/** The first line of every mesh bundle: its format and version. */
export const MESH_BUNDLE_HEADER = 'kubeplane-mesh 1';
/** Where every node keeps the public half of the mesh signing key (written from its user-data). */
export const MESH_SIGNING_PUBLIC_KEY_PATH = '/etc/kubeplane/mesh-signing.pub';

// POSIX extended regular expressions that mean the same in JavaScript: the agent's grep -E uses these strings.
const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
/** A DNS-1123 subdomain (Kubernetes node names, load-balancer names). */
const NAME = `${LABEL}(\\.${LABEL})*`;
/** 32 bytes in base64: 43 characters, the last of which encodes 4 bits (so its low 2 bits are zero), then `=`. */
const WG_KEY = '[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=';
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `${OCTET}(\\.${OCTET}){3}`;
const PORT = '([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';
const ENDPOINT = `(${IPV4}|${NAME}):${PORT}`;
const VERSION = '[0-9]{1,4}\\.[0-9]{1,4}\\.[0-9]{1,4}';
const PACKAGE = `${VERSION}-[0-9.]{1,32}`;
const BASE64 = '[A-Za-z0-9+/]{4,}={0,2}';

/** One pattern per kind of line, matched against whole lines (`grep -Ex`, or `^...$` here). */
export const MESH_BUNDLE_LINE_PATTERNS = {
  header: MESH_BUNDLE_HEADER,
  serial: 'serial [1-9][0-9]{0,14}',
  peer: `peer ${NAME} ${WG_KEY} ${IPV4} (${ENDPOINT}|-) (nat|direct)`,
  upgrade: `upgrade ${VERSION} ${PACKAGE} (apply|node)( ${NAME})+`,
  lb: `lb ${NAME} ${BASE64}`,
  cert: `cert ${NAME} ${BASE64}`,
} as const;

const LINE = Object.fromEntries(Object.entries(MESH_BUNDLE_LINE_PATTERNS).map(([k, p]) => [k, new RegExp(`^(${p})$`)])) as Record<
  keyof typeof MESH_BUNDLE_LINE_PATTERNS,
  RegExp
>;

/** What the engine tells nodes to do for an in-place upgrade: the nodes to move now, the version, its package, apply|node. */
export interface UpgradeInstruction {
  nodes: string[];
  version: string;
  package: string;
  mode: 'apply' | 'node';
}

/** The content of a mesh bundle: serial, WireGuard peers, upgrade instruction, load-balancer configurations and certificates. */
export interface MeshBundle {
  serial: number;
  peers: MeshPeer[];
  upgrade?: UpgradeInstruction;
  /** Each load balancer's nginx.conf, by load-balancer name. */
  loadBalancers: Record<string, string>;
  /** Each load-balancer node's mesh-reader client certificate (PEM), by node name. */
  meshReaderCertificates: Record<string, string>;
}

/** The result of reading a mesh bundle: the bundle, or why it was refused. */
export type MeshBundleCheck = { ok: true; bundle: MeshBundle } | { ok: false; reason: string };

/** A fresh Ed25519 key pair for signing mesh bundles (kept in the SecretStore with the cluster's keys). */
export function generateMeshSigningKeyPair(): PemKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKeyPem: Redacted.of(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
  };
}

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function line(kind: keyof typeof LINE, text: string): string {
  if (!LINE[kind].test(text)) throw new Error(`mesh bundle: refusing to sign an invalid ${kind} line: ${JSON.stringify(text.slice(0, 120))}`);
  return text;
}

/** The canonical document: the bytes that are signed and that agents verify. Throws on anything an agent would refuse. */
export function serializeMeshBundle(bundle: MeshBundle): string {
  if (!Number.isSafeInteger(bundle.serial) || bundle.serial < 1) throw new Error(`mesh bundle: invalid serial ${bundle.serial}`);
  const lines = [MESH_BUNDLE_HEADER, line('serial', `serial ${bundle.serial}`)];
  for (const p of bundle.peers) {
    lines.push(line('peer', `peer ${p.name} ${p.publicKey} ${p.overlayIp} ${p.endpoint ?? '-'} ${p.behindNat ? 'nat' : 'direct'}`));
  }
  const u = bundle.upgrade;
  if (u && u.nodes.length > 0) {
    lines.push(line('upgrade', `upgrade ${u.version} ${u.package} ${u.mode} ${u.nodes.join(' ')}`));
    if (!u.package.startsWith(`${u.version}-`)) throw new Error(`mesh bundle: package ${u.package} is not of version ${u.version}`);
  }
  for (const [name, conf] of Object.entries(bundle.loadBalancers).sort(([a], [b]) => a.localeCompare(b))) lines.push(line('lb', `lb ${name} ${b64(conf)}`));
  for (const [node, pem] of Object.entries(bundle.meshReaderCertificates).sort(([a], [b]) => a.localeCompare(b)))
    lines.push(line('cert', `cert ${node} ${b64(pem)}`));
  const text = `${lines.join('\n')}\n`;
  const parsed = parseMeshBundle(text);
  if (!parsed.ok) throw new Error(`mesh bundle: ${parsed.reason}`);
  return text;
}

/** The ConfigMap data of a signed bundle: `bundle` and `bundle.sig`, both base64. */
export function signMeshBundle(bundle: MeshBundle, privateKeyPem: Redacted<string>): Record<string, string> {
  const bytes = Buffer.from(serializeMeshBundle(bundle), 'utf8');
  const signature = sign(null, bytes, createPrivateKey(privateKeyPem.reveal()));
  return { [MESH_BUNDLE_KEY]: bytes.toString('base64'), [MESH_BUNDLE_SIGNATURE_KEY]: signature.toString('base64') };
}

/**
 * Reads a document strictly, as the agent does: every line one of the known kinds, one header first, one serial, at
 * most one upgrade instruction, no node, key, address, load balancer or certificate twice. No signature check.
 */
export function parseMeshBundle(text: string): MeshBundleCheck {
  const refuse = (reason: string): MeshBundleCheck => ({ ok: false, reason });
  if (!text.endsWith('\n')) return refuse('the document does not end with a newline');
  const lines = text.slice(0, -1).split('\n');
  if (lines[0] !== MESH_BUNDLE_HEADER) return refuse(`the document does not start with "${MESH_BUNDLE_HEADER}"`);
  const bundle: MeshBundle = { serial: 0, peers: [], loadBalancers: {}, meshReaderCertificates: {} };
  const seen = new Set<string>();
  const once = (what: string): boolean => {
    if (seen.has(what)) return false;
    seen.add(what);
    return true;
  };
  for (const [i, text] of lines.entries()) {
    const kind = (Object.keys(LINE) as Array<keyof typeof LINE>).find((k) => LINE[k].test(text));
    if (!kind) return refuse(`line ${i + 1} is not one kubeplane writes: ${JSON.stringify(text.slice(0, 80))}`);
    const f = text.split(' ');
    switch (kind) {
      case 'header':
        if (i !== 0) return refuse(`line ${i + 1} repeats the header`);
        break;
      case 'serial':
        if (!once('serial')) return refuse('the document has more than one serial');
        bundle.serial = Number(f[1]);
        break;
      case 'peer': {
        const [, name = '', publicKey = '', overlayIp = '', endpoint = '', nat = ''] = f;
        for (const [what, value] of [
          ['node', name],
          ['WireGuard key', publicKey],
          ['overlay address', overlayIp],
        ]) {
          if (!once(`${what} ${value}`)) return refuse(`${what} ${value} appears twice`);
        }
        bundle.peers.push({ name, publicKey, overlayIp, ...(endpoint !== '-' ? { endpoint } : {}), behindNat: nat === 'nat' });
        break;
      }
      case 'upgrade': {
        if (!once('upgrade')) return refuse('the document has more than one upgrade instruction');
        const [, version = '', pkg = '', mode = '', ...nodes] = f;
        if (!pkg.startsWith(`${version}-`)) return refuse(`package ${pkg} is not of version ${version}`);
        bundle.upgrade = { version, package: pkg, mode: mode === 'apply' ? 'apply' : 'node', nodes };
        break;
      }
      case 'lb':
      case 'cert': {
        const [, name = '', value = ''] = f;
        if (!once(`${kind} ${name}`)) return refuse(`${kind} ${name} appears twice`);
        const decoded = Buffer.from(value, 'base64');
        if (decoded.toString('base64') !== value) return refuse(`${kind} ${name} is not canonical base64`);
        if (kind === 'lb') bundle.loadBalancers[name] = decoded.toString('utf8');
        else bundle.meshReaderCertificates[name] = decoded.toString('utf8');
        break;
      }
    }
  }
  if (!seen.has('serial')) return refuse('the document has no serial');
  if (bundle.peers.length === 0) return refuse('the document lists no peers');
  return { ok: true, bundle };
}

/**
 * What an agent accepts from the mesh ConfigMap's data: a bundle whose signature verifies with `publicKeyPem`, that
 * parses strictly, and whose serial is not below `lastSerial` (the highest it applied; a lower one is a replay).
 */
export function verifyMeshBundle(data: Record<string, unknown> | undefined, publicKeyPem: string, lastSerial = 0): MeshBundleCheck {
  const refuse = (reason: string): MeshBundleCheck => ({ ok: false, reason });
  const encoded = data?.[MESH_BUNDLE_KEY];
  const encodedSignature = data?.[MESH_BUNDLE_SIGNATURE_KEY];
  if (typeof encoded !== 'string' || encoded === '') return refuse('the ConfigMap holds no signed bundle');
  if (typeof encodedSignature !== 'string' || !/^[A-Za-z0-9+/]{86}==$/.test(encodedSignature)) return refuse('the bundle has no Ed25519 signature');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return refuse('the bundle is not base64');
  const bytes = Buffer.from(encoded, 'base64');
  let key;
  try {
    key = createPublicKey(publicKeyPem);
  } catch {
    return refuse('no mesh signing public key to verify with');
  }
  if (key.asymmetricKeyType !== 'ed25519') return refuse('the mesh signing public key is not Ed25519');
  if (!verify(null, bytes, key, Buffer.from(encodedSignature, 'base64'))) return refuse('its signature does not verify with the mesh signing key');
  const parsed = parseMeshBundle(bytes.toString('utf8'));
  if (!parsed.ok) return parsed;
  if (parsed.bundle.serial < lastSerial) return refuse(`its serial ${parsed.bundle.serial} is below the last applied (${lastSerial}): a replay`);
  return parsed;
}
