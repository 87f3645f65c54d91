// Manifest: schemas, parsing from YAML/JSON/objects, validation with paths and lines, the version catalog.
export * from './issues.js';
export * from './kubernetes-versions.js';
export * from './names.js';
export * from './gcp-secret-name.js';
export * from './provider-types.js';
export * from './schema.js';
export { parseManifestObject, parseManifestText, parsePath, type ParsedDocument, type ParseOptions } from './parse.js';
export { checkManifestRules, checkManifestUpdate, IMMUTABLE_POOL_FIELDS, NAME_LIMITS, RESERVED_PORTS, API_SERVER_PORT } from './rules.js';
export { stableJson } from '../stable-json.js';
export * from './validate.js';
export * from './serialize.js';
export * from './json-schema.js';
