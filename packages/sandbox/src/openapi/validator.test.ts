import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findOperation } from './document.js';
import { ApiValidator } from './validator.js';

const spec = (file: string) => JSON.parse(readFileSync(new URL(`../../specs/${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;
const hetzner = spec('hetzner-cloud-openapi.json');
const crusoe = spec('crusoe-api-v1-swagger.json');
const hetznerValidator = new ApiValidator(hetzner);

describe('OpenAPI response validator', () => {
  it('finds the operation of a concrete path, preferring literal segments over templated ones', () => {
    expect(findOperation(hetzner, 'GET', '/v1/servers/42')?.name).toBe('GET /servers/{id}');
    expect(findOperation(hetzner, 'GET', '/v1/servers/actions')?.name).toBe('GET /servers/actions');
    expect(findOperation(hetzner, 'POST', '/v1/servers/42/actions/poweroff')?.name).toBe('POST /servers/{id}/actions/poweroff');
    expect(findOperation(crusoe, 'GET', '/v1/capacities')?.name).toBe('GET /capacities');
    expect(findOperation(hetzner, 'GET', '/v2/servers')).toBeUndefined();
  });

  it('takes a 404 for a path the document does not have as the answer it is, and flags any other answer to one', () => {
    expect(hetznerValidator.validate('GET', '/v1/no-such-collection', 404, { error: { code: 'not_found', message: 'not found' } })).toEqual([]);
    expect(hetznerValidator.validate('GET', '/v1/no-such-collection', 200, { items: [] })).toEqual([
      expect.objectContaining({ message: 'no operation in the API document matches this request' }),
    ]);
  });

  it('checks a 429 or 5xx an operation does not list against the response the document gives it elsewhere', () => {
    const crusoeValidator = new ApiValidator(crusoe);
    const clusters = '/v1/projects/a1b2c3d4-0000-4000-8000-00000000c0de/kubernetes/clusters';
    expect(crusoeValidator.validate('GET', clusters, 429, { code: '429', message: 'too_many_requests' })).toEqual([]);
    expect(crusoeValidator.validate('GET', clusters, 429, { error: 'slow down' }).map((v) => v.pointer)).toEqual(['', '']);
    // Not a front-door status: an operation that does not list 409 must not answer it.
    expect(crusoeValidator.validate('GET', clusters, 409, { code: 'conflict', message: 'x' })).toEqual([
      expect.objectContaining({ message: expect.stringContaining('not a declared response') }),
    ]);
  });

  it('reports a missing required field with its JSON pointer', () => {
    const violations = hetznerValidator.validate('GET', '/v1/locations/1', 200, { location: { id: 1, name: 'fsn1' } });
    expect(violations.length).toBeGreaterThan(0);
    expect(violations[0]).toMatchObject({ operation: 'GET /locations/{id}', status: 200, pointer: '/location' });
    expect(violations.map((v) => v.message).join()).toContain('description');
  });

  it('accepts null where the schema is nullable and refuses it where it is not', () => {
    const location = {
      id: 1,
      name: 'fsn1',
      description: 'Falkenstein DC Park 1',
      country: 'DE',
      city: 'Falkenstein',
      latitude: 50.47612,
      longitude: 12.370071,
      network_zone: 'eu-central',
    };
    expect(hetznerValidator.validate('GET', '/v1/locations/1', 200, { location })).toEqual([]);
    const action = {
      id: 1,
      command: 'start_server',
      status: 'running',
      progress: 0,
      started: '2026-01-01T00:00:00Z',
      finished: null,
      resources: [],
      error: null,
    };
    expect(hetznerValidator.validate('GET', '/v1/actions/1', 200, { action })).toEqual([]);
    expect(hetznerValidator.validate('GET', '/v1/actions/1', 200, { action: { ...action, started: null } }).map((v) => v.pointer)).toContain('/action/started');
  });

  it('checks date-time formats and error envelopes of the 4xx range', () => {
    const action = { id: 1, command: 'x', status: 'success', progress: 100, started: 'yesterday', finished: null, resources: [], error: null };
    expect(hetznerValidator.validate('GET', '/v1/actions/1', 200, { action }).map((v) => v.pointer)).toContain('/action/started');
    expect(hetznerValidator.validate('GET', '/v1/servers/1', 404, { error: { code: 'not_found', message: 'gone', details: {} } })).toEqual([]);
    expect(hetznerValidator.validate('GET', '/v1/servers/1', 404, { message: 'gone' })).not.toEqual([]);
  });

  it('refuses a status the operation does not declare and a body where none is declared', () => {
    expect(hetznerValidator.validate('DELETE', '/v1/networks/1', 200, null)[0]?.message).toMatch(/not a declared response/);
    expect(hetznerValidator.validate('DELETE', '/v1/networks/1', 204, undefined)).toEqual([]);
  });

  it('validates Swagger 2.0 responses reached through response $refs', () => {
    const v = new ApiValidator(crusoe);
    expect(v.validate('GET', '/v1/capacities', 200, { items: 'not an array' }).length).toBeGreaterThan(0);
  });
});

describe('OpenAPI request validator', () => {
  it('checks a request body against the operation schema, OpenAPI 3 and Swagger 2.0 alike', () => {
    expect(hetznerValidator.validateRequest('POST', '/v1/servers', 201, { name: 'a', server_type: 'cx22', image: 'ubuntu-24.04' })).toEqual([]);
    const wrong = hetznerValidator.validateRequest('POST', '/v1/servers', 201, { name: 7, server_type: 'cx22', image: 'ubuntu-24.04' });
    expect(wrong).toEqual([expect.objectContaining({ operation: 'POST /servers', subject: 'request', pointer: '/name' })]);
    expect(hetznerValidator.validateRequest('POST', '/v1/servers', 201, undefined)).toEqual([
      expect.objectContaining({ subject: 'request', message: 'the operation requires a JSON body but none was sent' }),
    ]);
    // No body declared (GET), or no such path: nothing to check here.
    expect(hetznerValidator.validateRequest('GET', '/v1/servers', 200, undefined)).toEqual([]);
    expect(hetznerValidator.validateRequest('POST', '/v1/no-such-collection', 201, { x: 1 })).toEqual([]);
    const crusoeValidator = new ApiValidator(crusoe);
    const keys = '/v1/projects/a1b2c3d4-0000-4000-8000-00000000c0de/compute/vms/instances';
    expect(crusoeValidator.validateRequest('POST', keys, 200, { name: 42 })).toEqual(
      expect.arrayContaining([expect.objectContaining({ subject: 'request', pointer: '/name' })]),
    );
  });
});

describe('where a document is stricter about requests than its API', () => {
  it('lets that error through only, under its pointer, for its operation', () => {
    const validator = new ApiValidator(hetzner, [
      { operation: 'POST /load_balancers/{id}/actions/add_service', pointer: /^$/, keyword: 'required', properties: ['health_check'], reason: 'test' },
      { operation: 'POST /servers', pointer: /^\/image$/, keyword: 'type', reason: 'test' },
    ]);
    expect(validator.validateRequest('POST', '/v1/servers', 201, { name: 'a', server_type: 'cx22', image: 114690387 })).toEqual([]);
    expect(hetznerValidator.validateRequest('POST', '/v1/servers', 201, { name: 'a', server_type: 'cx22', image: 114690387 })).not.toEqual([]);
    expect(validator.validateRequest('POST', '/v1/servers', 201, { name: 7, server_type: 'cx22', image: 114690387 })).not.toEqual([]);
    const service = { protocol: 'tcp', listen_port: 80, destination_port: 80, proxyprotocol: false };
    expect(validator.validateRequest('POST', '/v1/load_balancers/1/actions/add_service', 201, service)).toEqual([]);
    expect(hetznerValidator.validateRequest('POST', '/v1/load_balancers/1/actions/add_service', 201, service)).toEqual([
      expect.objectContaining({ message: expect.stringContaining("required property 'health_check'") }),
    ]);
    // Still checked when sent, and other required fields still count.
    expect(validator.validateRequest('POST', '/v1/load_balancers/1/actions/add_service', 201, { ...service, health_check: 'x' })).not.toEqual([]);
    const { protocol: _, ...noProtocol } = service;
    expect(validator.validateRequest('POST', '/v1/load_balancers/1/actions/add_service', 201, noProtocol)).toEqual([
      expect.objectContaining({ message: expect.stringContaining("required property 'protocol'") }),
    ]);
  });
});
