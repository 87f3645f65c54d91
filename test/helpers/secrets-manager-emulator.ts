// A small emulator of the AWS Secrets Manager JSON protocol (the operations SecretsManagerStore uses), served
// on loopback so the real @aws-sdk/client-secrets-manager talks to it. No offline Secrets Manager emulator
// exists on npm that we could use, so this one follows the API reference's request and error shapes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Secret {
  name: string;
  arn: string;
  value: string;
  tags: Array<{ Key: string; Value: string }>;
  versions: number;
  /** Scheduled for deletion (a recovery window): refused by reads and writes until restored, its name still taken. */
  deletedDate?: number;
}

export class SecretsManagerEmulator {
  readonly secrets = new Map<string, Secret>();
  readonly calls: string[] = [];
  #server: Server | undefined;

  async start(): Promise<string> {
    this.#server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const target = String(req.headers['x-amz-target'] ?? '').replace(/^secretsmanager\./, '');
        this.calls.push(target);
        let status = 200;
        let out: unknown;
        try {
          out = this.#handle(target, JSON.parse(body || '{}') as Record<string, unknown>);
        } catch (e) {
          status = 400;
          out = { __type: (e as Error).name, message: (e as Error).message };
        }
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(out));
      });
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  #find(id: unknown): Secret {
    const s = [...this.secrets.values()].find((x) => x.name === id || x.arn === id);
    if (!s) throw named('ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
    return s;
  }

  /** A secret that reads and writes may use: not scheduled for deletion. */
  #live(id: unknown): Secret {
    const s = this.#find(id);
    if (s.deletedDate !== undefined)
      throw named('InvalidRequestException', "You can't perform this operation on the secret because it was marked for deletion.");
    return s;
  }

  #handle(op: string, input: Record<string, unknown>): unknown {
    switch (op) {
      case 'CreateSecret': {
        const name = String(input.Name);
        if (this.secrets.get(name)?.deletedDate !== undefined)
          throw named('InvalidRequestException', "You can't create this secret because a secret with this name is already scheduled for deletion.");
        if (this.secrets.has(name)) throw named('ResourceExistsException', `The operation failed because the secret ${name} already exists.`);
        const s: Secret = {
          name,
          arn: `arn:aws:secretsmanager:eu-central-1:000000000000:secret:${name}-AbCdEf`,
          value: String(input.SecretString),
          tags: (input.Tags as Secret['tags']) ?? [],
          versions: 1,
        };
        this.secrets.set(name, s);
        return { ARN: s.arn, Name: name, VersionId: `v${s.versions}` };
      }
      case 'PutSecretValue': {
        const s = this.#live(input.SecretId);
        s.value = String(input.SecretString);
        s.versions++;
        return { ARN: s.arn, Name: s.name, VersionId: `v${s.versions}` };
      }
      case 'GetSecretValue': {
        const s = this.#live(input.SecretId);
        return { ARN: s.arn, Name: s.name, SecretString: s.value, VersionId: `v${s.versions}` };
      }
      case 'DescribeSecret': {
        const s = this.#find(input.SecretId);
        return { ARN: s.arn, Name: s.name, Tags: s.tags, ...(s.deletedDate !== undefined ? { DeletedDate: s.deletedDate / 1000 } : {}) };
      }
      case 'DeleteSecret': {
        const s = this.#find(input.SecretId);
        if (input.ForceDeleteWithoutRecovery === true) {
          this.secrets.delete(s.name);
          return { ARN: s.arn, Name: s.name, DeletionDate: Date.now() / 1000 };
        }
        if (s.deletedDate !== undefined)
          throw named('InvalidRequestException', "You can't perform this operation on the secret because it was already scheduled for deletion.");
        const days = Number(input.RecoveryWindowInDays ?? 30);
        if (!Number.isInteger(days) || days < 7 || days > 30) throw named('InvalidParameterException', 'RecoveryWindowInDays must be between 7 and 30 days.');
        s.deletedDate = Date.now();
        return { ARN: s.arn, Name: s.name, DeletionDate: (s.deletedDate + days * 86_400_000) / 1000 };
      }
      case 'RestoreSecret': {
        const s = this.#find(input.SecretId);
        delete s.deletedDate;
        return { ARN: s.arn, Name: s.name };
      }
      case 'TagResource': {
        const s = this.#live(input.SecretId);
        for (const t of input.Tags as Secret['tags']) s.tags = [...s.tags.filter((x) => x.Key !== t.Key), t];
        return {};
      }
      case 'UntagResource': {
        const s = this.#live(input.SecretId);
        const keys = input.TagKeys as string[];
        s.tags = s.tags.filter((t) => !keys.includes(t.Key));
        return {};
      }
      case 'ListSecrets': {
        const filters = (input.Filters as Array<{ Key: string; Values: string[] }> | undefined) ?? [];
        const prefixes = filters.filter((f) => f.Key === 'name').flatMap((f) => f.Values);
        // Secrets scheduled for deletion are left out unless IncludePlannedDeletion is set.
        const all = [...this.secrets.values()]
          .filter((s) => s.deletedDate === undefined || input.IncludePlannedDeletion === true)
          .filter((s) => prefixes.length === 0 || prefixes.some((p) => s.name.startsWith(p)))
          .sort((a, b) => a.name.localeCompare(b.name));
        const start = Number(input.NextToken ?? 0);
        const max = Number(input.MaxResults ?? 100);
        const page = all.slice(start, start + max);
        return {
          SecretList: page.map((s) => ({
            ARN: s.arn,
            Name: s.name,
            Tags: s.tags,
            ...(s.deletedDate !== undefined ? { DeletedDate: s.deletedDate / 1000 } : {}),
          })),
          ...(start + max < all.length ? { NextToken: String(start + max) } : {}),
        };
      }
      default:
        throw named('InvalidRequestException', `operation ${op} is not emulated`);
    }
  }
}

function named(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}
