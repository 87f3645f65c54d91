// Label selectors as Kubernetes defines them (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors)
// and the Hetzner Cloud API takes them (https://docs.hetzner.cloud/reference/cloud#label-selector): `k==v`/`k=v`,
// `k!=v`, `k`, `!k`, `k in (v1,v2)`, `k notin (v1,v2)`, joined by commas. A malformed selector is an error each
// emulator answers in its API's words (Hetzner 400 invalid_input, Kubernetes 400 BadRequest), never an empty match.

/** A selector that does not parse, with the requirement that broke it. */
export class LabelSelectorSyntaxError extends Error {
  constructor(
    readonly requirement: string,
    reason: string,
  ) {
    super(`${reason} '${requirement}'`);
    this.name = 'LabelSelectorSyntaxError';
  }
}

/** Whether `labels` match `selector` (throws LabelSelectorSyntaxError for a malformed one). */
export function matchesLabelSelector(labels: Record<string, string>, selector: string): boolean {
  return labelSelector(selector)(labels);
}

type Requirement =
  | { key: string; op: 'eq' | 'ne'; value: string }
  | { key: string; op: 'in' | 'notin'; values: string[] }
  | { key: string; op: 'exists' | 'absent' };

// The label key and value syntax (https://docs.hetzner.cloud/reference/cloud#labels, the same as Kubernetes').
const KEY = '(?:[a-zA-Z0-9.-]+\\/)?[a-zA-Z0-9](?:[-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?';
const VALUE = '(?:[a-zA-Z0-9](?:[-a-zA-Z0-9_.]{0,61}[a-zA-Z0-9])?)?';
const EQ = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`);
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s+\\(([^()]*)\\)$`);
const EXISTS = new RegExp(`^(!?)\\s*(${KEY})$`);
const VALUE_ONLY = new RegExp(`^${VALUE}$`);

/** Splits on the commas between requirements, not those inside `in (a,b)`. */
function split(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of selector) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (ch === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim());
}

export function parseLabelSelector(selector: string): Requirement[] {
  return split(selector).map((part): Requirement => {
    const eq = EQ.exec(part);
    if (eq) return { key: eq[1]!, op: eq[2] === '!=' ? 'ne' : 'eq', value: eq[3]! };
    const set = SET.exec(part);
    if (set) {
      const values = set[3]!.split(',').map((v) => v.trim());
      if (values.some((v) => v === '' || !VALUE_ONLY.test(v))) throw new LabelSelectorSyntaxError(part, 'invalid value list');
      return { key: set[1]!, op: set[2] === 'in' ? 'in' : 'notin', values };
    }
    const exists = EXISTS.exec(part);
    if (exists) return { key: exists[2]!, op: exists[1] === '!' ? 'absent' : 'exists' };
    throw new LabelSelectorSyntaxError(part, 'invalid label selector expression');
  });
}

/** A predicate over labels; throws LabelSelectorSyntaxError for a malformed selector. */
export function labelSelector(selector: string): (labels: Record<string, string>) => boolean {
  const requirements = parseLabelSelector(selector);
  return (labels) =>
    requirements.every((r) => {
      const value = labels[r.key];
      switch (r.op) {
        case 'eq':
          return value === r.value;
        case 'ne':
          return value !== r.value;
        case 'in':
          return value !== undefined && r.values.includes(value);
        case 'notin':
          return value === undefined || !r.values.includes(value);
        case 'exists':
          return value !== undefined;
        case 'absent':
          return value === undefined;
        default:
          return false;
      }
    });
}
