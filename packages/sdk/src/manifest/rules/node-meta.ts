// A pool's labels, annotations and taints (dynamic and static pools alike).
import type { IssueCollector, Path } from '../issues.js';
import { checkLabelValue, checkQualifiedName } from '../names.js';
import type { Taint } from '../schema.js';

const ANNOTATIONS_LIMIT = 256 * 1024;
const KUBEPLANE_PREFIX = 'kubeplane.dev/';
/** metav1.Time's wire form (RFC 3339, as Go's time.RFC3339 parses it). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function checkNodeMeta(
  out: IssueCollector,
  path: Path,
  pool: { labels?: Record<string, string>; annotations?: Record<string, string>; taints?: Taint[] },
): void {
  for (const [key, value] of Object.entries(pool.labels ?? {})) {
    const k = checkQualifiedName(key, 'label key');
    if (k) out.error([...path, 'labels', key], k);
    const v = checkLabelValue(value, `value of label ${key}`);
    if (v) out.error([...path, 'labels', key], v);
  }
  let size = 0;
  for (const [key, value] of Object.entries(pool.annotations ?? {})) {
    const k = checkQualifiedName(key, 'annotation key');
    if (k) out.error([...path, 'annotations', key], k);
    else if (key.startsWith(KUBEPLANE_PREFIX))
      out.error(
        [...path, 'annotations', key],
        `annotation key "${key}": the ${KUBEPLANE_PREFIX} prefix is kubeplane's own (it records there which annotations it put on a ` +
          'node, and the drains under way); choose another prefix',
      );
    size += key.length + value.length;
  }
  if (size > ANNOTATIONS_LIMIT) out.error([...path, 'annotations'], `annotations total ${size} bytes; at most ${ANNOTATIONS_LIMIT} are allowed`);
  const seen = new Set<string>();
  (pool.taints ?? []).forEach((taint, j) => {
    const k = checkQualifiedName(taint.key, 'taint key');
    if (k) out.error([...path, 'taints', j, 'key'], k);
    if (taint.value !== undefined) {
      const v = checkLabelValue(taint.value, 'taint value');
      if (v) out.error([...path, 'taints', j, 'value'], v);
    }
    if (typeof taint.timeAdded === 'string' && !RFC3339.test(taint.timeAdded)) {
      out.error([...path, 'taints', j, 'timeAdded'], `timeAdded "${taint.timeAdded}" must be an RFC 3339 time such as 2024-05-01T12:00:00Z`);
    } else if (typeof taint.timeAdded === 'string') {
      // Taint.timeAdded is set by the API server's node controller for NoExecute taints (pkg/apis/core/types.go); a value
      // written by a client is not what the eviction timing reads, so kubeplane puts the taint on without it.
      out.warning(
        [...path, 'taints', j, 'timeAdded'],
        'timeAdded is not applied: the taint is put on the nodes without it (the Kubernetes node controller records when ' +
          'a NoExecute taint was added); remove it to silence this warning',
      );
    }
    const id = `${taint.key}:${taint.effect}`;
    if (seen.has(id)) out.error([...path, 'taints', j], `taint ${id} is listed twice`);
    seen.add(id);
  });
}
