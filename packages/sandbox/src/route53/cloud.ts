// Route 53 as a sandbox cloud (clouds/descriptor.ts): the AWS account's hosted zones, health checks and changes,
// signed requests checked against the account's STS. Served on the AWS port, with EC2 (ec2/cloud.ts).
import { SANDBOX_CREDENTIALS } from '../accounts.js';
import { canonicalName, type SandboxCloud } from '../clouds/descriptor.js';
import { STS_SANDBOX_CLOUD } from '../sts/cloud.js';
import { Route53Emulator, type Route53EmulatorOptions, type Route53EmulatorState } from './emulator.js';

/** The Sandbox's options for Route 53. */
export interface Route53CloudOptions {
  route53?: Partial<Route53EmulatorOptions>;
}

export const ROUTE53_SANDBOX_CLOUD: SandboxCloud<'route53', Route53Emulator, Route53EmulatorState, Route53CloudOptions, { readonly route53: Route53Emulator }> =
  {
    name: 'route53',
    title: 'Amazon Route 53',
    providerType: 'aws',
    build: ({ context, options, saved, use }) => {
      const emulator = new Route53Emulator(context, {
        accessKeyId: SANDBOX_CREDENTIALS.awsAccessKeyId,
        secretAccessKey: SANDBOX_CREDENTIALS.awsSecretAccessKey,
        keyring: use(STS_SANDBOX_CLOUD),
        ...options.route53,
      });
      if (saved) emulator.restore(saved);
      return emulator;
    },
    state: (emulator) => emulator.state(),
    fields: (emulator) => ({ route53: emulator }),
    handlers: (emulator) => emulator.handlers(),
    inventory: (emulator) => emulator.inventory(),
    onAwsCall: (emulator, listener) => [emulator.onCall(listener)],
    dns: {
      zoneCount: (emulator) => emulator.zones.size,
      addZone: (emulator, zone) => emulator.addZone(zone),
      records: (emulator, name) => {
        const out: Array<{ type: string; value: string }> = [];
        for (const zone of emulator.zones.values()) {
          for (const r of zone.records) {
            if (canonicalName(r.name) !== name) continue;
            // An alias answers with its target's records (of its own zone; a target elsewhere, an ELB say, the sandbox cannot see).
            const alias = r.alias;
            const values = alias ? zone.records.filter((t) => t.name === alias.dnsName && t.type === r.type && !t.alias).flatMap((t) => t.values) : r.values;
            for (const v of values) out.push({ type: r.type, value: v });
          }
        }
        return out;
      },
    },
  };
