// Health checks: CreateHealthCheck (idempotent by CallerReference), DeleteHealthCheck (refused while a record set
// names the check) and ListHealthChecks.
import { EmulatorError, type Reply } from '../emulator/index.js';
import { el, t } from '../xml.js';
import { parser, ROUTE53_BASE, xml } from './dialect.js';
import type { HealthCheck, Route53Route, Route53World } from './world.js';

export function healthCheckRoutes(w: Route53World): Route53Route[] {
  return [
    ['POST /healthcheck', (c) => createHealthCheck(w, c.body), { name: 'CreateHealthCheck' }],
    ['DELETE /healthcheck/{id}', (c) => deleteHealthCheck(w, c.params['id'] ?? ''), { name: 'DeleteHealthCheck' }],
    [
      'GET /healthcheck',
      () =>
        xml(
          'ListHealthChecksResponse',
          el('HealthChecks', ...[...w.healthChecks.values()].map(healthCheckXml)) + t('IsTruncated', false) + t('MaxItems', 1000) + t('Marker', ''),
        ),
      { name: 'ListHealthChecks' },
    ],
  ];
}

function healthCheckXml(h: HealthCheck): string {
  return el(
    'HealthCheck',
    t('Id', h.id),
    t('CallerReference', h.callerReference),
    el('HealthCheckConfig', t('IPAddress', h.ip), t('Port', h.port), t('Type', h.type), t('RequestInterval', 30), t('FailureThreshold', 3)),
    t('HealthCheckVersion', 1),
  );
}

/** A health-check id (a UUID on Route 53), from the emulator's counter so seeded worlds repeat exactly. */
function uuid(w: Route53World): string {
  return `5a1e0053-0000-4000-8000-${w.seq.next().toString(16).padStart(12, '0')}`;
}

function createHealthCheck(w: Route53World, body: string): Reply {
  const doc = parser.parse(body) as {
    CreateHealthCheckRequest?: { CallerReference?: string; HealthCheckConfig?: { IPAddress?: string; Port?: string; Type?: string } };
  };
  const req = doc.CreateHealthCheckRequest;
  const ref = req?.CallerReference;
  const cfg = req?.HealthCheckConfig;
  if (!ref || !cfg?.Type) throw new EmulatorError(400, 'InvalidInput', 'CallerReference and HealthCheckConfig.Type are required');
  const created = (h: HealthCheck) => xml('CreateHealthCheckResponse', healthCheckXml(h), 201, { Location: `${ROUTE53_BASE}/healthcheck/${h.id}` });
  const existing = w.healthChecks.find((h) => h.callerReference === ref);
  if (existing) {
    if (existing.ip !== cfg.IPAddress || existing.port !== Number(cfg.Port))
      throw new EmulatorError(409, 'HealthCheckAlreadyExists', `A health check with caller reference ${ref} already exists with a different configuration.`);
    return created(existing);
  }
  const h: HealthCheck = { id: uuid(w), callerReference: ref, ip: cfg.IPAddress ?? '', port: Number(cfg.Port ?? 80), type: cfg.Type };
  w.healthChecks.set(h.id, h);
  return created(h);
}

function deleteHealthCheck(w: Route53World, id: string): Reply {
  const h = w.healthChecks.require(id, () => new EmulatorError(404, 'NoSuchHealthCheck', `A health check with id ${id} does not exist.`));
  for (const z of w.zones.values())
    if (z.records.some((r) => r.healthCheckId === h.id))
      throw new EmulatorError(400, 'HealthCheckInUse', `The health check ${h.id} is still referenced from a record set.`);
  w.healthChecks.delete(h.id);
  return xml('DeleteHealthCheckResponse', '');
}
