// Checks (or with --local, rewrites) api/*.api.md: one API Extractor report per public entry point of each published
// package, read from the built .d.ts in dist, so a change to what a package exports is a visible diff in review.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The public entry points: [report name, package folder, built entry .d.ts]. `@kubeplane/sdk/internal` is left out on
 * purpose: it is not covered by semver. The sandbox's `./testing` export is a source-only test helper (no types in dist).
 */
export const ENTRY_POINTS = [
  ['sdk', 'packages/sdk', 'dist/index.d.ts'],
  ['sdk-manifest', 'packages/sdk', 'dist/manifest/index.d.ts'],
  ['sdk-errors', 'packages/sdk', 'dist/errors.d.ts'],
  ['sdk-provider', 'packages/sdk', 'dist/provider/index.d.ts'],
  ['sdk-conformance', 'packages/sdk', 'dist/provider/conformance/index.d.ts'],
  ['sdk-port-suite', 'packages/sdk', 'dist/engine/testing/port-suite.d.ts'],
  ['providers', 'packages/providers', 'dist/index.d.ts'],
  ['sandbox', 'packages/sandbox', 'dist/index.d.ts'],
  ['handlers', 'packages/handlers', 'dist/index.d.ts'],
  ['handlers-aws', 'packages/handlers', 'dist/aws/index.d.ts'],
  ['handlers-aws-deploy', 'packages/handlers', 'dist/aws/deploy.d.ts'],
  ['handlers-gcp', 'packages/handlers', 'dist/gcp/index.d.ts'],
  ['aws-cdk', 'packages/aws-cdk', 'dist/index.d.ts'],
];

const local = process.argv.includes('--local');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const reportFolder = join(repo, 'api');
const tempFolder = join(repo, 'build', 'api-report');
mkdirSync(tempFolder, { recursive: true });
mkdirSync(reportFolder, { recursive: true });

let failed = 0;
for (const [name, folder, entry] of ENTRY_POINTS) {
  if (only.length > 0 && !only.includes(name)) continue;
  const projectFolder = join(repo, folder);
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder,
      mainEntryPointFilePath: join(projectFolder, entry),
      bundledPackages: [],
      compiler: {
        // The built .d.ts alone, resolved as a consumer resolves them: no `@kubeplane/source` condition, so the
        // other kubeplane packages' types come from their dist too.
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: [join(projectFolder, entry)],
        },
      },
      apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder, reportTempFolder: tempFolder },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // Our doc comments are written for TypeDoc, not TSDoc; TypeDoc checks them (npm run docs:api).
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // Release tags (@public, @beta) are not used: what an entry point exports is public.
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Documentation is TypeDoc's to require (npm run docs:api requires it where the reference needs it).
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          // A type a signature names but this entry point does not export (it may come from another entry point,
          // e.g. Provider from /provider): listed in the report, so a new one is part of the diff.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
        },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(projectFolder, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: local, showVerboseMessages: false });
  if (!result.succeeded) {
    failed++;
    console.error(
      `${name}: ${result.apiReportChanged ? `api/${name}.api.md differs from the built API` : 'failed'} (${result.errorCount} errors, ${result.warningCount} warnings)`,
    );
  } else if (local && result.apiReportChanged) {
    console.log(`${name}: api/${name}.api.md updated`);
  }
}
if (failed > 0) {
  console.error(local ? 'API Extractor failed.' : 'The public API changed: review the differences above, then run `npm run api:update` and commit api/.');
  process.exitCode = 1;
}
