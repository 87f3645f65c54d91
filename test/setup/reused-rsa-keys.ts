// The fast tier makes a few hundred throwaway sandbox clusters in two processes, and each cluster's three CAs are
// RSA-2048 keys: 0.2-0.8 s of CPU apiece, about a fifth of the tier's CPU. Here every cluster a fast-tier file makes
// takes its RSA keys from seven made once per worker, handed out in turn (the chaos harness does the same for its
// seeds): seven, not a multiple of the three CAs a cluster takes, so two clusters made one after the other never share
// a CA. What a real cluster gets is unchanged, and proven with fresh keys where it matters: key-pairs.test.ts puts the
// real generator back for itself, and the e2e tier (the CLI's own processes) never loads this file.
import { afterAll, beforeAll } from 'vitest';
import { freshKeyPairs, generateRsaKeyPair, type KeyPairSource, reusedRsaKeyPairs } from '../../packages/sdk/src/bootstrap/pki.js';

// vitest runs setup files again before every file; the keys are the worker's, kept on its global object.
const POOL = Symbol.for('kubeplane.test.reusedRsaKeyPairs');
const holder = globalThis as { [POOL]?: KeyPairSource };
const reused = (holder[POOL] ??= reusedRsaKeyPairs(7));

beforeAll(() => {
  freshKeyPairs.rsa = reused.rsa;
});

afterAll(() => {
  freshKeyPairs.rsa = generateRsaKeyPair;
});
