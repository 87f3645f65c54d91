// @peculiar/x509 with what it needs first (the Reflect metadata shim, see there). Loaded by pki.ts on first use, not
// when the sdk is imported: a program that only validates or plans neither pays for the X.509 stack's load time nor
// gets Reflect extended.
import './reflect-metadata-shim.js';

export * from '@peculiar/x509';
