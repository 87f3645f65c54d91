// TLS certificates of the emulated Hetzner project, of type `uploaded`: the user's PEM certificate and key, read for
// the fields the API derives from them (https://docs.hetzner.cloud/reference/cloud#certificates).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { type Collection, EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { invalidInput } from './dialect.js';
import { byId, type HetznerProject, type HetznerRoute, SORT_ID_NAME_CREATED } from './project.js';
import type { Labels } from './resources.js';

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
  readonly items: Collection<number, Certificate>;

  constructor(private readonly p: HetznerProject) {
    this.items = p.store.collection('certificates', { inventory: (c) => p.inventoryItem('certificate', c) });
  }

  routes(): HetznerRoute[] {
    const p = this.p;
    const certificate = byId(this.items, 'certificate');
    return [
      [
        'GET /certificates',
        (c) => {
          const type = c.query.getAll('type');
          const chosen = this.items.filter(() => type.length === 0 || type.includes('uploaded'));
          return reply(p.list('certificates', chosen, (x) => this.json(x), c.query, SORT_ID_NAME_CREATED));
        },
      ],
      ['POST /certificates', (c) => reply(this.#create(c.body), 201)],
      ['GET /certificates/{id}', (c) => reply({ certificate: this.json(certificate(c)) })],
      [
        'PUT /certificates/{id}',
        (c) => {
          const cert = certificate(c);
          if (c.body['name'] !== undefined && c.body['name'] !== cert.name) cert.name = p.name(c.body['name'], this.items.values(), 'certificate');
          if (c.body['labels'] !== undefined) cert.labels = p.labels(c.body['labels']);
          return reply({ certificate: this.json(cert) });
        },
      ],
      [
        'DELETE /certificates/{id}',
        (c) => {
          this.items.delete(certificate(c).id);
          return noContent();
        },
      ],
    ];
  }

  #create(body: Json): Json {
    const name = this.p.name(body['name'], this.items.values(), 'certificate');
    // Managed certificates need Let's Encrypt and Hetzner DNS delegation: outside what the sandbox emulates, so refused
    // as the sandbox refuses what it does not serve (not as invalid input: the API takes them).
    if (body['type'] === 'managed')
      throw new EmulatorError(
        400,
        'unsupported_error',
        "the sandbox does not serve managed certificates (POST /certificates of type managed): Hetzner's API has them, the sandbox does not emulate " +
          'them (docs/sandbox.md)',
      );
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
