// Hetzner/Kubernetes-style label selectors (`k=v,k!=v,k,!k`), used by the Hetzner emulator's list calls.

type Requirement = { key: string; op: 'eq' | 'ne' | 'exists' | 'absent'; value?: string };

export function parseLabelSelector(selector: string): Requirement[] {
  return selector
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part): Requirement => {
      const ne = part.indexOf('!=');
      if (ne > 0) return { key: part.slice(0, ne).trim(), op: 'ne', value: part.slice(ne + 2).trim() };
      const eq = part.indexOf('=');
      if (eq > 0) return { key: part.slice(0, eq).trim(), op: 'eq', value: part.slice(eq + (part[eq + 1] === '=' ? 2 : 1)).trim() };
      if (part.startsWith('!')) return { key: part.slice(1).trim(), op: 'absent' };
      return { key: part, op: 'exists' };
    });
}

export function matchesLabelSelector(labels: Record<string, string>, selector: string): boolean {
  return parseLabelSelector(selector).every((r) => {
    const value = labels[r.key];
    switch (r.op) {
      case 'eq':
        return value === r.value;
      case 'ne':
        return value !== r.value;
      case 'exists':
        return value !== undefined;
      case 'absent':
        return value === undefined;
    }
  });
}
