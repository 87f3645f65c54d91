// SSH keys of the emulated Hetzner project: public keys by name, unique by their MD5 fingerprint
// (https://docs.hetzner.cloud/reference/cloud#ssh-keys).
import { createHash } from 'node:crypto';
import { EmulatorError, type Json, noContent, reply } from '../emulator/index.js';
import { byId, type HetznerProject, type HetznerRoute } from './project.js';
import type { SshKey } from './resources.js';

export class SshKeys {
  constructor(private readonly p: HetznerProject) {}

  routes(): HetznerRoute[] {
    const p = this.p;
    const key = byId(p.sshKeys, 'ssh_key');
    return [
      [
        'GET /ssh_keys',
        (c) => {
          // `fingerprint` filters the list to the one key with that MD5 fingerprint (GET /ssh_keys in the Cloud API's OpenAPI).
          const fingerprint = c.query.get('fingerprint');
          const keys = p.sshKeys.filter((k) => fingerprint === null || k.fingerprint === fingerprint);
          return reply(p.list('ssh_keys', keys, (k) => this.json(k), c.query, ['id', 'name']));
        },
      ],
      ['POST /ssh_keys', (c) => reply({ ssh_key: this.json(this.#create(c.body)) }, 201)],
      ['GET /ssh_keys/{id}', (c) => reply({ ssh_key: this.json(key(c)) })],
      [
        'PUT /ssh_keys/{id}',
        (c) => {
          const k = key(c);
          if (c.body['name'] !== undefined && c.body['name'] !== k.name) k.name = p.name(c.body['name'], p.sshKeys.values(), 'ssh_key');
          if (c.body['labels'] !== undefined) k.labels = p.labels(c.body['labels']);
          return reply({ ssh_key: this.json(k) });
        },
      ],
      [
        'DELETE /ssh_keys/{id}',
        (c) => {
          p.sshKeys.delete(key(c).id);
          return noContent();
        },
      ],
    ];
  }

  #create(body: Json): SshKey {
    const p = this.p;
    const name = p.name(body['name'], p.sshKeys.values(), 'ssh_key');
    const publicKey = body['public_key'];
    if (typeof publicKey !== 'string' || !/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256) [A-Za-z0-9+/=]+/.test(publicKey))
      throw new EmulatorError(400, 'invalid_input', 'invalid public key', { details: { fields: [{ name: 'public_key' }] } });
    const digest = createHash('md5')
      .update(Buffer.from(publicKey.split(' ')[1] ?? '', 'base64'))
      .digest('hex');
    const fingerprint = digest.match(/../g)!.join(':');
    if (p.sshKeys.find((k) => k.fingerprint === fingerprint))
      throw new EmulatorError(409, 'uniqueness_error', 'SSH key with the same fingerprint already exists', { details: { fields: [{ name: 'public_key' }] } });
    const k: SshKey = { id: p.id(), name, labels: p.labels(body['labels']), publicKey, fingerprint, created: p.now() };
    p.sshKeys.set(k.id, k);
    return k;
  }

  json(k: SshKey): Json {
    return { id: k.id, name: k.name, labels: k.labels, public_key: k.publicKey, fingerprint: k.fingerprint, created: this.p.iso(k.created) };
  }
}
