// TLS certificates of the emulated Hetzner project, of type `uploaded`: the user's PEM certificate and key, read for
// the fields the API derives from them (https://docs.hetzner.cloud/reference/cloud#certificates).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { ApiError, invalidInput, type Json, type Labels } from './api-error.js';
import { found, SORT_ID_NAME_CREATED, type HetznerProject } from './project.js';

export interface Certificate {
  id: number;
  name: string;
  labels: Labels;
  pem: string;
  domainNames: string[];
  fingerprint: string;
  notValidBefore: number;
  notValidAfter: number;
  created: number;
}

export class Certificates {
  readonly items = new Map<number, Certificate>();

  constructor(private readonly p: HetznerProject) {}

  route(method: string, id: number | undefined, sub: string | undefined, query: URLSearchParams, body: Json): [number, unknown] | undefined {
    if (id === undefined) {
      if (method === 'GET') {
        const type = query.get('type');
        return [
          200,
          this.p.list(
            'certificates',
            [...this.items.values()].filter(() => type === null || type === 'uploaded'),
            (c) => this.json(c),
            query,
            SORT_ID_NAME_CREATED,
          ),
        ];
      }
      if (method === 'POST') return [201, this.#create(body)];
      return undefined;
    }
    const cert = found(this.items, id, 'certificate');
    if (sub !== undefined) return undefined;
    if (method === 'GET') return [200, { certificate: this.json(cert) }];
    if (method === 'PUT') {
      if (body['name'] !== undefined && body['name'] !== cert.name) cert.name = this.p.name(body['name'], this.items.values(), 'certificate');
      if (body['labels'] !== undefined) cert.labels = this.p.labels(body['labels']);
      return [200, { certificate: this.json(cert) }];
    }
    if (method === 'DELETE') {
      this.items.delete(id);
      return [204, undefined];
    }
    return undefined;
  }

  #create(body: Json): Json {
    const name = this.p.name(body['name'], this.items.values(), 'certificate');
    // Managed certificates need Let's Encrypt and Hetzner DNS delegation: outside what the sandbox emulates.
    if (body['type'] !== undefined && body['type'] !== 'uploaded')
      throw new ApiError(400, 'invalid_input', 'only uploaded certificates are emulated by the sandbox', {
        fields: [{ name: 'type', messages: ['must be uploaded'] }],
      });
    let x509: X509Certificate;
    try {
      x509 = new X509Certificate(String(body['certificate'] ?? ''));
    } catch {
      throw invalidInput('certificate', 'must be a PEM encoded certificate');
    }
    try {
      if (!x509.checkPrivateKey(createPrivateKey(String(body['private_key'] ?? '')))) throw new Error('mismatch');
    } catch {
      throw invalidInput('private_key', 'must be the PEM encoded private key of the certificate');
    }
    const sans = (x509.subjectAltName ?? '')
      .split(', ')
      .filter((s) => s.startsWith('DNS:'))
      .map((s) => s.slice(4));
    const cn = /CN=([^\n]+)/.exec(x509.subject)?.[1];
    const c: Certificate = {
      id: this.p.id(),
      name,
      labels: this.p.labels(body['labels']),
      pem: String(body['certificate']),
      domainNames: sans.length > 0 ? sans : cn ? [cn] : [],
      fingerprint: x509.fingerprint256.toLowerCase(),
      notValidBefore: Date.parse(x509.validFrom),
      notValidAfter: Date.parse(x509.validTo),
      created: this.p.now(),
    };
    this.items.set(c.id, c);
    // "For type `uploaded` Certificates the `action` is always null" (POST /certificates).
    return { certificate: this.json(c), action: null };
  }

  json(c: Certificate): Json {
    return {
      id: c.id,
      name: c.name,
      labels: c.labels,
      type: 'uploaded',
      certificate: c.pem,
      domain_names: c.domainNames,
      fingerprint: c.fingerprint,
      not_valid_before: this.p.iso(c.notValidBefore),
      not_valid_after: this.p.iso(c.notValidAfter),
      status: null,
      used_by: [],
      created: this.p.iso(c.created),
    };
  }
}
