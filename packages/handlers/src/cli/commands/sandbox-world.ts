// The sandbox world's explicit options, read when a command makes the world (a world kept in the state directory keeps
// its own): `--aws-opt-in-regions a,b`, the opt-in AWS Regions its account has enabled (a new account, the default, has
// none), and `--sandbox-date YYYY-MM-DD`, the day its virtual clock starts (default 2026-01-01), which decides what the
// clouds' catalogs still sell (a Hetzner type past its deprecation date is no longer sold). And
// `--user-data-transform <module>`, which is no part of the world: an ES module whose default export (or `transform`)
// the sandbox applies to every machine's user-data before it boots (the seam for defects, docs/netns.md).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { UserDataTransform } from '@kubeplane/sandbox';
import { UsageError } from '../io.js';

export interface SandboxWorldOptions {
  /** Opt-in AWS Regions of the sandbox account (--aws-opt-in-regions). */
  awsOptInRegions?: string[];
  /** The virtual clock's start, ms since the epoch (--sandbox-date). */
  sandboxStart?: number;
  /** Applied to every machine's user-data before it boots (--user-data-transform). */
  userDataTransform?: UserDataTransform;
}

/** The world options of a command's values, checked before anything runs; a bad one is a usage error. */
export async function sandboxWorldOptions(
  values: {
    'aws-opt-in-regions'?: string | undefined;
    'sandbox-date'?: string | undefined;
    'user-data-transform'?: string | undefined;
  },
  cwd: string = process.cwd(),
): Promise<SandboxWorldOptions> {
  const awsOptInRegions = await awsOptInRegionsOption(values['aws-opt-in-regions']);
  const sandboxStart = sandboxDateOption(values['sandbox-date']);
  const userDataTransform = await userDataTransformOption(values['user-data-transform'], cwd);
  return {
    ...(awsOptInRegions ? { awsOptInRegions } : {}),
    ...(sandboxStart !== undefined ? { sandboxStart } : {}),
    ...(userDataTransform ? { userDataTransform } : {}),
  };
}

/** The module's transform: its default export, or its export `transform`, a function of (machine, files). */
async function userDataTransformOption(value: string | undefined, cwd: string): Promise<UserDataTransform | undefined> {
  if (value === undefined) return undefined;
  const path = resolve(cwd, value);
  if (!existsSync(path)) throw new UsageError(`--user-data-transform: ${value} does not exist`);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (e) {
    throw new UsageError(`--user-data-transform: ${value} cannot be loaded as an ES module: ${(e as Error).message.split('\n')[0] ?? ''}`);
  }
  const transform = typeof module['default'] === 'function' ? module['default'] : module['transform'];
  if (typeof transform !== 'function')
    throw new UsageError(`--user-data-transform: ${value} exports no function: export default (or export \`transform\`) a function (machine, files) => files`);
  return transform as UserDataTransform;
}

/** The Regions of the option, or undefined without it; a name that is no opt-in Region is a usage error. */
async function awsOptInRegionsOption(value: string | undefined): Promise<string[] | undefined> {
  if (value === undefined) return undefined;
  const regions = value
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r.length > 0);
  if (regions.length === 0) throw new UsageError('--aws-opt-in-regions needs Region names, comma-separated (eu-central-2,ap-east-1)');
  // Loaded here only: a command on real clouds never loads the sandbox.
  const { sandboxAccountRegions } = await import('@kubeplane/sandbox');
  try {
    sandboxAccountRegions(regions);
  } catch (e) {
    throw new UsageError(`--aws-opt-in-regions: ${(e as Error).message.replace(/^awsOptInRegions: /, '')}`);
  }
  return regions;
}

/** Midnight UTC of the option's day, or undefined without it. */
function sandboxDateOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? Date.parse(`${value}T00:00:00Z`) : Number.NaN;
  // Date.parse rolls 2026-02-30 over to March; a day that does not exist is refused.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value)
    throw new UsageError(`--sandbox-date must be a day as YYYY-MM-DD (2025-12-01), not "${value}"`);
  return ms;
}
