// Health checks (https://docs.aws.amazon.com/Route53/latest/APIReference/API_CreateHealthCheck.html and its siblings):
// CreateHealthCheck (idempotent by CallerReference), GetHealthCheck, UpdateHealthCheck (HealthCheckVersion), ListHealthChecks
// (marker and maxitems), GetHealthCheckCount, GetHealthCheckStatus and DeleteHealthCheck (refused while a record set
// names the check). The sandbox runs no checkers: every check reports healthy from each of Route 53's checker Regions.
import { EmulatorError, type Reply } from '../emulator/index.js';
import { el, t } from '../xml.js';
import { parser, ROUTE53_BASE, xml } from './dialect.js';
import type { HealthCheck, HealthCheckConfig, Route53Route, Route53World } from './world.js';

export function healthCheckRoutes(w: Route53World): Route53Route[] {
  const id = (c: { params: Record<string, string> }) => c.params['id'] ?? '';
  return [
    ['POST /healthcheck', (c) => createHealthCheck(w, c.body), { name: 'CreateHealthCheck' }],
    ['GET /healthcheck', (c) => listHealthChecks(w, c.query), { name: 'ListHealthChecks' }],
    ['GET /healthcheckcount', () => xml('GetHealthCheckCountResponse', t('HealthCheckCount', w.healthChecks.size)), { name: 'GetHealthCheckCount' }],
    ['GET /healthcheck/{id}', (c) => xml('GetHealthCheckResponse', healthCheckXml(healthCheckOf(w, id(c)))), { name: 'GetHealthCheck' }],
    ['POST /healthcheck/{id}', (c) => updateHealthCheck(w, id(c), c.body), { name: 'UpdateHealthCheck' }],
    ['GET /healthcheck/{id}/status', (c) => healthCheckStatus(w, id(c)), { name: 'GetHealthCheckStatus' }],
    ['DELETE /healthcheck/{id}', (c) => deleteHealthCheck(w, id(c)), { name: 'DeleteHealthCheck' }],
  ];
}

const TYPES = ['HTTP', 'HTTPS', 'HTTP_STR_MATCH', 'HTTPS_STR_MATCH', 'TCP', 'CALCULATED', 'CLOUDWATCH_METRIC', 'RECOVERY_CONTROL'];
/** The checker Regions Route 53 uses when a check names none (HealthCheckConfig, Regions: "at least three"). */
const CHECKER_REGIONS = ['us-east-1', 'us-west-1', 'us-west-2', 'eu-west-1', 'ap-southeast-1', 'ap-southeast-2', 'ap-northeast-1', 'sa-east-1'];
/** The addresses of Route 53's health checkers, one stand-in per Region (TEST-NET-2: they are no real hosts). */
const checkerAddress = (i: number): string => `198.51.100.${10 + i}`;

export function healthCheckOf(w: Route53World, id: string): HealthCheck {
  return w.healthChecks.require(id, () => new EmulatorError(404, 'NoSuchHealthCheck', `A health check with id ${id} does not exist.`));
}

/** A check's configuration: what the request gave (with Route 53's defaults filled in), or a check from an older snapshot. */
function configOf(h: HealthCheck): HealthCheckConfig {
  return h.config ?? { type: h.type, ipAddress: h.ip, port: h.port, requestInterval: 30, failureThreshold: 3 };
}

type RawConfig = Record<string, string | undefined> & { Regions?: { Region?: string | string[] } };

const invalidInput = (message: string) => new EmulatorError(400, 'InvalidInput', message);

/**
 * A HealthCheckConfig checked as Route 53 checks it: a Type it knows, an IPv4 or IPv6 address or a domain name for the
 * endpoint types, a port 1-65535 (default 80 for HTTP, 443 for HTTPS), RequestInterval 10 or 30 (default 30) and
 * FailureThreshold 1-10 (default 3), a SearchString only for the string-matching types.
 */
function readConfig(raw: RawConfig | undefined, base?: HealthCheckConfig): HealthCheckConfig {
  const type = base?.type ?? raw?.['Type'] ?? '';
  if (!TYPES.includes(type)) throw invalidInput(`Invalid health check type: '${type}'. Valid values: ${TYPES.join(', ')}`);
  const endpoint = ['HTTP', 'HTTPS', 'HTTP_STR_MATCH', 'HTTPS_STR_MATCH', 'TCP'].includes(type);
  const int = (name: string, fallback: number | undefined): number | undefined => {
    const v = raw?.[name];
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n)) throw invalidInput(`Invalid ${name}: ${v}`);
    return n;
  };
  const ipAddress = raw?.['IPAddress'] ?? base?.ipAddress;
  const fqdn = raw?.['FullyQualifiedDomainName'] ?? base?.fullyQualifiedDomainName;
  if (ipAddress !== undefined && !isIPv4(ipAddress) && !isIPv6(ipAddress)) throw invalidInput(`Invalid IP address: '${ipAddress}'`);
  if (endpoint && ipAddress === undefined && fqdn === undefined)
    throw invalidInput('Invalid request: A health check of this type needs an IPAddress or a FullyQualifiedDomainName.');
  const https = type.startsWith('HTTPS');
  const port = int('Port', base?.port ?? (endpoint ? (https ? 443 : 80) : undefined));
  if (port !== undefined && (port < 1 || port > 65535)) throw invalidInput(`Invalid port: ${port}. The port must be between 1 and 65535.`);
  const requestInterval = int('RequestInterval', base?.requestInterval ?? 30) ?? 30;
  if (![10, 30].includes(requestInterval)) throw invalidInput(`Invalid RequestInterval: ${requestInterval}. Valid values: 10, 30`);
  const failureThreshold = int('FailureThreshold', base?.failureThreshold ?? 3) ?? 3;
  if (failureThreshold < 1 || failureThreshold > 10) throw invalidInput(`Invalid FailureThreshold: ${failureThreshold}. It must be between 1 and 10.`);
  const searchString = raw?.['SearchString'] ?? base?.searchString;
  if (searchString !== undefined && !type.endsWith('STR_MATCH'))
    throw invalidInput(`SearchString is only allowed for HTTP_STR_MATCH and HTTPS_STR_MATCH checks.`);
  if (searchString === undefined && type.endsWith('STR_MATCH')) throw invalidInput(`A ${type} health check needs a SearchString.`);
  const bool = (name: string, fallback: boolean | undefined) => (raw?.[name] === undefined ? fallback : raw[name] === 'true');
  const regions = raw?.Regions?.Region;
  return {
    type,
    ...(ipAddress !== undefined ? { ipAddress } : {}),
    ...(port !== undefined ? { port } : {}),
    ...((raw?.['ResourcePath'] ?? base?.resourcePath) ? { resourcePath: raw?.['ResourcePath'] ?? base?.resourcePath } : {}),
    ...(fqdn !== undefined ? { fullyQualifiedDomainName: fqdn } : {}),
    ...(searchString !== undefined ? { searchString } : {}),
    requestInterval,
    failureThreshold,
    measureLatency: bool('MeasureLatency', base?.measureLatency ?? false) ?? false,
    inverted: bool('Inverted', base?.inverted ?? false) ?? false,
    disabled: bool('Disabled', base?.disabled ?? false) ?? false,
    ...(https ? { enableSni: bool('EnableSNI', base?.enableSni ?? true) ?? true } : {}),
    ...(regions ? { regions: Array.isArray(regions) ? regions : [regions] } : base?.regions ? { regions: base.regions } : {}),
  };
}

function healthCheckXml(h: HealthCheck): string {
  const c = configOf(h);
  return el(
    'HealthCheck',
    t('Id', h.id),
    t('CallerReference', h.callerReference),
    el(
      'HealthCheckConfig',
      t('IPAddress', c.ipAddress),
      t('Port', c.port),
      t('Type', c.type),
      t('ResourcePath', c.resourcePath),
      t('FullyQualifiedDomainName', c.fullyQualifiedDomainName),
      t('SearchString', c.searchString),
      t('RequestInterval', c.requestInterval),
      t('FailureThreshold', c.failureThreshold),
      t('MeasureLatency', c.measureLatency ?? false),
      t('Inverted', c.inverted ?? false),
      t('Disabled', c.disabled ?? false),
      t('EnableSNI', c.enableSni),
      c.regions ? el('Regions', ...c.regions.map((r) => t('Region', r))) : '',
    ),
    t('HealthCheckVersion', h.version ?? 1),
  );
}

/** A health-check id (a UUID on Route 53), from the emulator's counter so seeded worlds repeat exactly. */
function uuid(w: Route53World): string {
  return `5a1e0053-0000-4000-8000-${w.seq.next().toString(16).padStart(12, '0')}`;
}

function createHealthCheck(w: Route53World, body: string): Reply {
  const doc = parser.parse(body) as { CreateHealthCheckRequest?: { CallerReference?: string; HealthCheckConfig?: RawConfig } };
  const req = doc.CreateHealthCheckRequest;
  const ref = req?.CallerReference;
  if (!ref) throw invalidInput('Invalid request: CallerReference is required.');
  if (!req?.HealthCheckConfig) throw invalidInput('Invalid request: HealthCheckConfig is required.');
  const config = readConfig(req.HealthCheckConfig);
  const created = (h: HealthCheck) => xml('CreateHealthCheckResponse', healthCheckXml(h), 201, { Location: `${ROUTE53_BASE}/healthcheck/${h.id}` });
  const existing = w.healthChecks.find((h) => h.callerReference === ref);
  if (existing) {
    // "If you send a CreateHealthCheck request with the same CallerReference and settings as a previous request, ...
    // Route 53 returns a HealthCheckAlreadyExists error" only when the settings differ; the same ones return the check.
    if (JSON.stringify(configOf(existing)) !== JSON.stringify(config))
      throw new EmulatorError(409, 'HealthCheckAlreadyExists', `A health check with caller reference ${ref} already exists with a different configuration.`);
    return created(existing);
  }
  const h: HealthCheck = { id: uuid(w), callerReference: ref, ip: config.ipAddress ?? '', port: config.port ?? 0, type: config.type, config, version: 1 };
  w.healthChecks.set(h.id, h);
  return created(h);
}

/** UpdateHealthCheck: the fields given replace the check's; a HealthCheckVersion that is not the current one is refused. */
function updateHealthCheck(w: Route53World, id: string, body: string): Reply {
  const h = healthCheckOf(w, id);
  const doc = parser.parse(body) as { UpdateHealthCheckRequest?: RawConfig & { HealthCheckVersion?: string } };
  const req = doc.UpdateHealthCheckRequest ?? {};
  const version = h.version ?? 1;
  if (req.HealthCheckVersion !== undefined && Number(req.HealthCheckVersion) !== version)
    throw new EmulatorError(
      409,
      'HealthCheckVersionMismatch',
      `The value of HealthCheckVersion in the request (${req.HealthCheckVersion}) doesn't match the value of HealthCheckVersion in the health check ` +
        `(${version}).`,
    );
  const config = readConfig(req, configOf(h));
  Object.assign(h, { config, ip: config.ipAddress ?? '', port: config.port ?? 0, version: version + 1 });
  return xml('UpdateHealthCheckResponse', healthCheckXml(h));
}

/** ListHealthChecks: pages of `maxitems` (at most 1000, default 100) from the check `marker` names. */
function listHealthChecks(w: Route53World, q: URLSearchParams): Reply {
  const raw = q.get('maxitems');
  const max = raw === null ? 100 : Number(raw);
  if (!Number.isInteger(max) || max < 1) throw invalidInput(`Invalid value for maxitems: ${raw ?? ''}`);
  const size = Math.min(max, 1000);
  const all = [...w.healthChecks.values()];
  const marker = q.get('marker');
  const start = marker === null ? 0 : all.findIndex((h) => h.id === marker);
  if (start < 0) throw invalidInput(`Invalid marker: ${marker ?? ''}`);
  const page = all.slice(start, start + size);
  const next = all[start + size];
  return xml(
    'ListHealthChecksResponse',
    el('HealthChecks', ...page.map(healthCheckXml)) +
      t('Marker', marker ?? '') +
      t('IsTruncated', next !== undefined) +
      t('NextMarker', next?.id) +
      t('MaxItems', size),
  );
}

/** GetHealthCheckStatus: one observation per checker Region; a calculated or metric check has none to report. */
function healthCheckStatus(w: Route53World, id: string): Reply {
  const h = healthCheckOf(w, id);
  const c = configOf(h);
  if (['CALCULATED', 'CLOUDWATCH_METRIC', 'RECOVERY_CONTROL'].includes(c.type))
    throw invalidInput(`Health check ${h.id} is a ${c.type} health check: Route 53 reports the status of endpoint health checks only.`);
  const status = c.type === 'TCP' ? 'Success: TCP connection established' : 'Success: HTTP Status Code 200, OK';
  const checked = new Date(w.now()).toISOString();
  return xml(
    'GetHealthCheckStatusResponse',
    el(
      'HealthCheckObservations',
      ...(c.regions ?? CHECKER_REGIONS).map((region, i) =>
        el(
          'HealthCheckObservation',
          t('Region', region),
          t('IPAddress', checkerAddress(i)),
          el('StatusReport', t('Status', status), t('CheckedTime', checked)),
        ),
      ),
    ),
  );
}

function deleteHealthCheck(w: Route53World, id: string): Reply {
  const h = healthCheckOf(w, id);
  for (const z of w.zones.values())
    if (z.records.some((r) => r.healthCheckId === h.id))
      throw new EmulatorError(400, 'HealthCheckInUse', `The health check ${h.id} is still referenced from a record set.`);
  w.healthChecks.delete(h.id);
  return xml('DeleteHealthCheckResponse', '');
}

/** Whether `value` is a dotted-quad IPv4 address. */
export function isIPv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** Whether `value` is an IPv6 address (RFC 4291 text forms, with at most one `::`). */
export function isIPv6(value: string): boolean {
  if (!/^[0-9a-fA-F:.]+$/.test(value) || (value.match(/::/g) ?? []).length > 1) return false;
  const [head = '', tail] = value.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const all = [...groups(head), ...(tail === undefined ? [] : groups(tail))];
  const last = all.at(-1) ?? '';
  const v4 = last.includes('.') ? (isIPv4(last) ? 2 : Number.NaN) : 0;
  const hex = v4 ? all.slice(0, -1) : all;
  if (Number.isNaN(v4) || !hex.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return false;
  const count = hex.length + v4;
  return tail === undefined ? count === 8 : count < 8;
}
