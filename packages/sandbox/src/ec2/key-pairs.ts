// Key pairs: ImportKeyPair, DescribeKeyPairs and DeleteKeyPair (the sandbox makes none itself: CreateKeyPair is not served).
import { createHash } from 'node:crypto';
import { EmulatorError } from '../emulator/index.js';
import { items, queryList, t, tagsFor } from '../xml.js';
import { done, type Ec2Routes, result } from './dialect.js';
import { selectDescribed, tagAttr } from './filters.js';
import type { KeyPair } from './resources.js';
import { tagsXml } from './tags.js';
import type { Ec2World } from './world.js';

function keyPairAttr(k: KeyPair, name: string): string[] {
  return name === 'key-pair-id' ? [k.id] : name === 'key-name' ? [k.name] : name === 'fingerprint' ? [k.fingerprint] : tagAttr(k.tags, name);
}

export function keyPairRoutes(w: Ec2World): Ec2Routes {
  return [
    [
      'ImportKeyPair',
      ({ body: p }) => {
        const name = p.get('KeyName') ?? '';
        if (w.keyPairs.find((k) => k.name === name)) throw new EmulatorError(400, 'InvalidKeyPair.Duplicate', `The keypair '${name}' already exists.`);
        const material = Buffer.from(p.get('PublicKeyMaterial') ?? '', 'base64').toString('utf8');
        if (!/^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp256) [A-Za-z0-9+/=]+/.test(material))
          throw new EmulatorError(400, 'InvalidKey.Format', 'Key is not in valid OpenSSH public key format');
        const digest = createHash('sha256')
          .update(Buffer.from(material.split(' ')[1] ?? '', 'base64'))
          .digest('base64')
          .replace(/=+$/, '');
        const k: KeyPair = { id: w.id('key'), name, fingerprint: digest, tags: tagsFor(p, 'key-pair'), publicKey: material.trim(), createdAt: w.now() };
        w.keyPairs.set(k.id, k);
        return result(t('keyFingerprint', k.fingerprint) + t('keyName', k.name) + t('keyPairId', k.id) + tagsXml(k.tags));
      },
    ],
    [
      'DescribeKeyPairs',
      ({ body: p }) => {
        const names = queryList(p, 'KeyName');
        const found = selectDescribed(
          [...w.keyPairs.values()],
          p,
          'DescribeKeyPairs',
          'KeyPairId',
          (k) => k.id,
          keyPairAttr,
          (id) => new EmulatorError(400, 'InvalidKeyPair.NotFound', `The key pair ID '${id}' does not exist`),
        ).filter((k) => names.length === 0 || names.includes(k.name));
        if (names.length > 0 && found.length < names.length)
          throw new EmulatorError(400, 'InvalidKeyPair.NotFound', `The key pair '${names.find((n) => !found.some((k) => k.name === n)) ?? ''}' does not exist`);
        // KeyType, CreateTime and, with IncludePublicKey, the public key (API_KeyPairInfo.html).
        const withKey = p.get('IncludePublicKey') === 'true';
        return result(
          items(
            'keySet',
            found,
            (k) =>
              t('keyPairId', k.id) +
              t('keyName', k.name) +
              t('keyFingerprint', k.fingerprint) +
              t('keyType', k.publicKey?.startsWith('ssh-rsa') ? 'rsa' : k.publicKey ? 'ed25519' : undefined) +
              t('createTime', k.createdAt === undefined ? undefined : new Date(k.createdAt).toISOString()) +
              t('publicKey', withKey ? k.publicKey : undefined) +
              tagsXml(k.tags),
          ),
        );
      },
    ],
    [
      'DeleteKeyPair',
      ({ body: p }) => {
        const k = w.keyPairs.find((x) => x.name === p.get('KeyName') || x.id === p.get('KeyPairId'));
        if (k) w.keyPairs.delete(k.id);
        return done();
      },
    ],
  ];
}
